// Command coredns is the test cluster's DNS server: CoreDNS's own server
// with only the plugins the cluster's Corefile (tests/support/cluster) uses.
// CoreDNS's command links every plugin it ships, among them the cloud
// providers' DNS services and tracers whose SDKs are most of its build; the
// node needs none of them, so its build compiles about a third as much.
package main

import (
	"github.com/coredns/coredns/coremain"

	// The Corefile's directives: bind, errors, kubernetes, forward, cache.
	_ "github.com/coredns/coredns/plugin/bind"
	_ "github.com/coredns/coredns/plugin/cache"
	_ "github.com/coredns/coredns/plugin/errors"
	_ "github.com/coredns/coredns/plugin/forward"
	_ "github.com/coredns/coredns/plugin/kubernetes"
)

func main() {
	coremain.Run()
}
