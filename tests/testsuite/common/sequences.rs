//! Command sequences that grow a project, shared by the tests that compare
//! `alpha generate` with the commands it replays. Each line is one
//! kubebuilder-rs command after `init`; write them in PROJECT order (a
//! webhook right after its API, a conversion webhook after its spokes), the
//! order `alpha generate` replays.

/// A single-group project with every kind of resource PROJECT records.
pub const SINGLE_GROUP: &[&str] = &[
    "create api --group crew --version v1 --kind Captain",
    "create api --group crew --version v1 --kind Captain --controller-name captain-backup --resource=false --controller",
    "create webhook --group crew --version v1 --kind Captain --defaulting --programmatic-validation",
    "create api --group crew --version v1 --kind Admiral --namespaced=false --plural admirales",
    "create webhook --group crew --version v1 --kind Admiral --defaulting --defaulting-path=/default-admiral",
    "create api --group crew --version v1 --kind FirstMate",
    "create api --group crew --version v2 --kind FirstMate --resource --controller=false",
    "create webhook --group crew --version v1 --kind FirstMate --conversion --spoke v2",
    "create api --group crew --version v1 --kind Navigator --ssa",
    "create api --group cert-manager --version v1 --kind Certificate --resource=false --controller --external-api-path github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1 --external-api-domain io --external-api-module github.com/cert-manager/cert-manager@v1.18.2",
    "create api --group apps --version v1 --kind Deployment --resource=false --controller",
    "create webhook --group apps --version v1 --kind Deployment --defaulting --programmatic-validation",
    "create webhook --group core --version v1 --kind Pod --defaulting",
];

/// A multigroup project: groups with dots, a kind in two groups, versions
/// converted by a webhook, and a built-in type.
pub const MULTIGROUP: &[&str] = &[
    "create api --group crew --version v1 --kind Captain",
    "create webhook --group crew --version v1 --kind Captain --defaulting --programmatic-validation",
    "create api --group foo.policy --version v1 --kind HealthCheckPolicy --namespaced=false",
    "create api --group sea --version v1beta1 --kind Ship",
    "create api --group sea --version v1 --kind Ship --resource --controller=false",
    "create webhook --group sea --version v1beta1 --kind Ship --conversion --spoke v1",
    "create api --group foo --version v1 --kind Captain",
    "create api --group apps --version v1 --kind Deployment --resource=false --controller",
    "create webhook --group apps --version v1 --kind Deployment --programmatic-validation",
];

/// `init` as the kubebuilder book's CronJob tutorial runs it.
pub const BOOK_INIT: &str =
    "init --domain tutorial.kubebuilder.io --repo tutorial.kubebuilder.io/project";

/// The commands of the kubebuilder book's CronJob and multiversion
/// tutorials: the project's own `batch` group next to a controller for the
/// built-in batch/v1 Job.
pub const BOOK_TUTORIAL: &[&str] = &[
    "create api --group batch --version v1 --kind CronJob --resource --controller",
    "create api --group batch --version v1 --kind Job --resource=false --controller",
    "create api --group batch --version v2 --kind CronJob --resource --controller=false",
    "create webhook --group batch --version v1 --kind CronJob --defaulting --programmatic-validation --conversion --spoke v2",
];
