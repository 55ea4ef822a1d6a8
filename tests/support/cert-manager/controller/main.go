// Command controller is the test cluster's stand-in for cert-manager's
// controller image. cert-manager publishes its commands as separate Go
// modules that the module proxy does not serve, so this small main runs the
// controllers of the cert-manager module itself, at the version the
// scaffolds name. It runs what a kubebuilder project's certificates need:
// Certificates, CertificateRequests with their approval, and self-signed and
// CA Issuers and ClusterIssuers. ACME, Vault and Venafi are left out.
//
// It accepts the flags cert-manager's manifests pass and ignores those it
// has no use for (leader election: the stand-in runs as one replica).
package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/pflag"
	"golang.org/x/sync/errgroup"

	"github.com/cert-manager/cert-manager/pkg/controller"
	"github.com/cert-manager/cert-manager/pkg/healthz"
	logf "github.com/cert-manager/cert-manager/pkg/logs"

	_ "github.com/cert-manager/cert-manager/pkg/controller/certificaterequests/approver"
	_ "github.com/cert-manager/cert-manager/pkg/controller/certificaterequests/ca"
	_ "github.com/cert-manager/cert-manager/pkg/controller/certificaterequests/selfsigned"
	_ "github.com/cert-manager/cert-manager/pkg/controller/certificates/issuing"
	_ "github.com/cert-manager/cert-manager/pkg/controller/certificates/keymanager"
	_ "github.com/cert-manager/cert-manager/pkg/controller/certificates/readiness"
	_ "github.com/cert-manager/cert-manager/pkg/controller/certificates/requestmanager"
	_ "github.com/cert-manager/cert-manager/pkg/controller/certificates/revisionmanager"
	_ "github.com/cert-manager/cert-manager/pkg/controller/certificates/trigger"
	_ "github.com/cert-manager/cert-manager/pkg/controller/clusterissuers"
	_ "github.com/cert-manager/cert-manager/pkg/controller/issuers"
	_ "github.com/cert-manager/cert-manager/pkg/issuer/ca"
	_ "github.com/cert-manager/cert-manager/pkg/issuer/selfsigned"
)

// settings are the flags this stand-in acts on.
type settings struct {
	kubeconfig               string
	clusterResourceNamespace string
	healthzAddress           string
	workers                  int
	enableOwnerRef           bool
}

func parseFlags(args []string) (settings, error) {
	var s settings
	fs := pflag.NewFlagSet("controller", pflag.ContinueOnError)
	// cert-manager's manifests pass more flags than the stand-in needs.
	fs.ParseErrorsAllowlist.UnknownFlags = true
	fs.StringVar(&s.kubeconfig, "kubeconfig", "", "kubeconfig file; in-cluster configuration when empty")
	fs.StringVar(&s.clusterResourceNamespace, "cluster-resource-namespace", "kube-system",
		"namespace of the Secrets that ClusterIssuers refer to")
	fs.StringVar(&s.healthzAddress, "healthz-listen-address", "0.0.0.0:9403", "address of /livez")
	fs.IntVar(&s.workers, "concurrent-workers", 5, "workers per controller")
	fs.BoolVar(&s.enableOwnerRef, "enable-certificate-owner-ref", false,
		"make each Certificate the owner of its Secret")
	return s, fs.Parse(args)
}

func main() {
	s, err := parseFlags(os.Args[1:])
	if err != nil {
		fmt.Fprintf(os.Stderr, "controller: %v\n", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	ctx = logf.NewContext(ctx, logf.Log, "controller")
	if err := run(ctx, s); err != nil {
		fmt.Fprintf(os.Stderr, "controller: %v\n", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, s settings) error {
	log := logf.FromContext(ctx)
	factory, err := controller.NewContextFactory(ctx, controller.ContextOptions{
		Kubeconfig:         s.kubeconfig,
		KubernetesAPIQPS:   20,
		KubernetesAPIBurst: 50,
		IssuerOptions:      controller.IssuerOptions{ClusterResourceNamespace: s.clusterResourceNamespace},
		CertificateOptions: controller.CertificateOptions{
			EnableOwnerRef: s.enableOwnerRef,
			// cert-manager's own defaults for a failed request's retry.
			CertificateRequestMinimumBackoffDuration: time.Hour,
			CertificateRequestMaximumBackoffDuration: 32 * time.Hour,
		},
	})
	if err != nil {
		return err
	}
	base, err := factory.Build()
	if err != nil {
		return err
	}
	group, ctx := errgroup.WithContext(ctx)
	// Every controller registers its informers when it is built, so all are
	// built before the informer factories start.
	for name, build := range controller.Known() {
		c, err := build(factory)
		if err != nil {
			return fmt.Errorf("building controller %s: %w", name, err)
		}
		log.Info("starting controller", "controller", name)
		group.Go(func() error { return c.Run(s.workers, ctx) })
	}
	base.SharedInformerFactory.Start(ctx.Done())
	base.KubeSharedInformerFactory.Start(ctx.Done())
	base.HTTP01ResourceMetadataInformersFactory.Start(ctx.Done())

	listener, err := (&net.ListenConfig{}).Listen(ctx, "tcp", s.healthzAddress)
	if err != nil {
		return fmt.Errorf("listening on %s: %w", s.healthzAddress, err)
	}
	health := healthz.NewServer(20 * time.Second)
	group.Go(func() error { return health.Start(ctx, listener) })
	return group.Wait()
}
