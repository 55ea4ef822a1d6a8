// Command cainjector is the test cluster's stand-in for cert-manager's
// cainjector image: the CA injectors of the cert-manager module (webhook
// configurations, CRDs' conversion webhooks and APIServices, from a
// Certificate's Secret or a named Secret), run in one controller-runtime
// manager. cert-manager's own main is in a module the proxy does not serve.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/pflag"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	cmscheme "github.com/cert-manager/cert-manager/pkg/client/clientset/versioned/scheme"
	"github.com/cert-manager/cert-manager/pkg/controller/cainjector"
	logf "github.com/cert-manager/cert-manager/pkg/logs"
	"github.com/cert-manager/cert-manager/pkg/util"
)

func main() {
	fs := pflag.NewFlagSet("cainjector", pflag.ContinueOnError)
	// cert-manager's manifests pass flags (leader election, logging) that a
	// single stand-in replica has no use for.
	fs.ParseErrorsAllowlist.UnknownFlags = true
	metricsAddress := fs.String("metrics-listen-address", "0.0.0.0:9402", "address of /metrics; 0 turns it off")
	if err := fs.Parse(os.Args[1:]); err != nil {
		fmt.Fprintf(os.Stderr, "cainjector: %v\n", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	ctx = logf.NewContext(ctx, logf.Log, "cainjector")
	ctrl.SetLogger(logf.Log)
	if err := run(ctx, *metricsAddress); err != nil {
		fmt.Fprintf(os.Stderr, "cainjector: %v\n", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, metricsAddress string) error {
	scheme := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(cmscheme.AddToScheme(scheme))
	utilruntime.Must(apiextensionsv1.AddToScheme(scheme))
	utilruntime.Must(apiregistrationv1.AddToScheme(scheme))
	config, err := ctrl.GetConfig()
	if err != nil {
		return err
	}
	// The injectors apply CA bundles under a field manager named after the
	// client's user agent.
	config = util.RestConfigWithUserAgent(config, "cainjector")
	mgr, err := ctrl.NewManager(config, ctrl.Options{
		Scheme: scheme,
		Cache:  cache.Options{ReaderFailOnMissingInformer: true},
		// Secrets are read directly, as cert-manager does, not cached.
		Client:  client.Options{Cache: &client.CacheOptions{DisableFor: []client.Object{&corev1.Secret{}}}},
		Metrics: metricsserver.Options{BindAddress: metricsAddress},
	})
	if err != nil {
		return fmt.Errorf("creating the manager: %w", err)
	}
	err = cainjector.RegisterAllInjectors(ctx, mgr, cainjector.SetupOptions{
		EnableCertificatesDataSource: true,
		EnabledReconcilersFor: map[string]bool{
			cainjector.MutatingWebhookConfigurationName:   true,
			cainjector.ValidatingWebhookConfigurationName: true,
			cainjector.APIServiceName:                     true,
			cainjector.CustomResourceDefinitionName:       true,
		},
	})
	if err != nil {
		return fmt.Errorf("registering the injectors: %w", err)
	}
	return mgr.Start(ctx)
}
