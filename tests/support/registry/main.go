// Command registry is the test cluster's image registry: distribution's
// registry with the one storage driver the cluster configures (a directory
// on this machine). distribution's command also links the cloud storage
// drivers (S3, Azure, Google Cloud Storage) and their SDKs, which the node
// never uses and which are most of that command's build.
package main

import (
	"fmt"
	"os"

	"github.com/distribution/distribution/v3/registry"
	_ "github.com/distribution/distribution/v3/registry/storage/driver/filesystem"
)

func main() {
	if err := registry.RootCmd.Execute(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
