// Command webhook is the test cluster's stand-in for cert-manager's webhook
// image: the cert-manager module's webhook server (validation, defaulting
// and conversion of cert-manager's own resources, serving a certificate
// from its dynamic CA), configured from the same flags as cert-manager's.
// cert-manager's own main is in a module the proxy does not serve.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/pflag"

	cmwebhook "github.com/cert-manager/cert-manager/internal/webhook"
	logf "github.com/cert-manager/cert-manager/pkg/logs"
	"github.com/cert-manager/cert-manager/pkg/webhook/options"
)

func main() {
	config, err := options.NewWebhookConfiguration()
	if err != nil {
		fmt.Fprintf(os.Stderr, "webhook: %v\n", err)
		os.Exit(1)
	}
	fs := pflag.NewFlagSet("webhook", pflag.ContinueOnError)
	// --config is accepted for the manifests' sake; the stand-in takes its
	// settings from flags only.
	options.NewWebhookFlags().AddFlags(fs)
	options.AddConfigFlags(fs, config)
	if err := fs.Parse(os.Args[1:]); err != nil {
		fmt.Fprintf(os.Stderr, "webhook: %v\n", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	log := logf.FromContext(logf.NewContext(ctx, logf.Log), "webhook")
	server, err := cmwebhook.NewCertManagerWebhookServer(log, *config)
	if err == nil {
		err = server.Run(ctx)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "webhook: %v\n", err)
		os.Exit(1)
	}
}
