//! English plurals, computed exactly like `flect.Pluralize` from
//! github.com/gobuffalo/flect v1.0.3.
//!
//! kubebuilder computes a resource's plural as
//! `flect.Pluralize(strings.ToLower(kind))` and controller-gen names CRD files
//! `<group>.<domain>_<plural>.yaml` with the same function, so the plural we
//! write must be byte-for-byte the one those tools compute — including their
//! oddities. Both controller-tools v0.23.0 and kubebuilder v4.15.0 require
//! flect v1.0.3; the tables below are that version's data.
//!
//! # How flect decides
//!
//! The input is split into words (on spaces, `_ : - /` and lower→upper case
//! changes); only the last word is inflected, the rest is kept. In order:
//!
//! 1. the whole input is a dictionary singular → its dictionary plural;
//! 2. the whole input, or the lowercased last word, is already a known plural
//!    (a dictionary plural or alternative plural) → unchanged;
//! 3. the lowercased last word is a dictionary singular → its plural
//!    (capitalised if the word was);
//! 4. the first suffix rule whose suffix ends the last word (case-sensitive)
//!    rewrites that suffix. Every rule `singular → plural` is preceded by a
//!    rule that leaves words already ending in `plural` alone. Dictionary
//!    entries (except the `exact` ones) also act as suffix rules, so that
//!    compound words inflect like their tail (`salesperson` → `salespeople`),
//!    and they are tried before the general suffix table, the last dictionary
//!    entry first;
//! 5. otherwise a word ending in `s` (any case) is kept and anything else
//!    gets an `s`.
//!
//! Words whose uppercase form is one of flect's acronyms become that uppercase
//! acronym before step 4, and the rewrite then fails to strip the lowercase
//! original: flect turns `dns` into `dnsDNSes`. kubebuilder does the same for a
//! kind named `DNS`, so we reproduce it.
//!
//! flect also reads extra inflections from `inflections.json` in the working
//! directory (or `$INFLECT_PATH`); like kubebuilder run in a clean directory,
//! we use only the built-in tables.
//!
//! The contract, checked against flect itself by `tests/testsuite/go/plural_flect.rs`, is
//! exact agreement for ASCII input. Non-ASCII characters are treated as
//! letters, which is what flect does for the common ones.

/// One entry of flect's dictionary of irregular and invariable nouns.
struct Entry {
    singular: &'static str,
    /// For uncountable nouns this is the singular itself.
    plural: &'static str,
    /// Another accepted plural: an input equal to it is left alone.
    alternative: Option<&'static str>,
    /// The plural does not map back to this singular, so it is not treated
    /// as a known plural.
    unidirectional: bool,
    /// Matches whole words only, never the tail of a compound word.
    exact: bool,
}

const fn w(singular: &'static str, plural: &'static str) -> Entry {
    Entry {
        singular,
        plural,
        alternative: None,
        unidirectional: false,
        exact: false,
    }
}

const fn alt(singular: &'static str, plural: &'static str, alternative: &'static str) -> Entry {
    Entry {
        alternative: Some(alternative),
        ..w(singular, plural)
    }
}

const fn exact(singular: &'static str, plural: &'static str) -> Entry {
    Entry {
        exact: true,
        ..w(singular, plural)
    }
}

const fn one_way(singular: &'static str, plural: &'static str) -> Entry {
    Entry {
        unidirectional: true,
        ..w(singular, plural)
    }
}

const fn uncountable(word: &'static str) -> Entry {
    w(word, word)
}

/// flect's dictionary, in flect's order (the order decides which entry wins
/// as a suffix rule).
const DICTIONARY: &[Entry] = &[
    // Same in singular and plural.
    w("aircraft", "aircraft"),
    alt("beef", "beef", "beefs"),
    w("bison", "bison"),
    one_way("blues", "blues"),
    w("chassis", "chassis"),
    w("deer", "deer"),
    alt("fish", "fish", "fishes"),
    w("moose", "moose"),
    w("police", "police"),
    alt("salmon", "salmon", "salmons"),
    w("series", "series"),
    w("sheep", "sheep"),
    alt("shrimp", "shrimp", "shrimps"),
    w("species", "species"),
    alt("swine", "swine", "swines"),
    alt("trout", "trout", "trouts"),
    alt("tuna", "tuna", "tunas"),
    w("you", "you"),
    // Plurals in -en.
    w("child", "children"),
    exact("ox", "oxen"),
    // Vowel changes.
    w("foot", "feet"),
    w("goose", "geese"),
    w("man", "men"),
    w("human", "humans"),
    exact("louse", "lice"),
    w("mouse", "mice"),
    w("tooth", "teeth"),
    w("woman", "women"),
    exact("die", "dice"),
    w("person", "people"),
    // French -u.
    alt("adieu", "adieux", "adieus"),
    w("fabliau", "fabliaux"),
    alt("bureau", "bureaus", "bureaux"),
    // Greek -on → -a.
    w("criterion", "criteria"),
    alt("ganglion", "ganglia", "ganglions"),
    alt("lexicon", "lexica", "lexicons"),
    alt("mitochondrion", "mitochondria", "mitochondrions"),
    w("noumenon", "noumena"),
    w("phenomenon", "phenomena"),
    w("taxon", "taxa"),
    // Latin -um → -a.
    w("media", "media"),
    Entry {
        alternative: Some("mediums"),
        ..one_way("medium", "media")
    },
    alt("stadium", "stadiums", "stadia"),
    alt("aquarium", "aquaria", "aquariums"),
    alt("auditorium", "auditoria", "auditoriums"),
    alt("symposium", "symposia", "symposiums"),
    alt("curriculum", "curriculums", "curricula"),
    w("quota", "quotas"),
    // Latin -us → -i / -era (flect's spelling "octupuses" included).
    alt("alumnus", "alumni", "alumnuses"),
    w("bacillus", "bacilli"),
    alt("cactus", "cacti", "cactuses"),
    w("coccus", "cocci"),
    alt("focus", "foci", "focuses"),
    alt("locus", "loci", "locuses"),
    alt("nucleus", "nuclei", "nucleuses"),
    alt("octopus", "octupuses", "octopi"),
    alt("radius", "radii", "radiuses"),
    w("syllabus", "syllabi"),
    alt("corpus", "corpora", "corpuses"),
    w("genus", "genera"),
    // Latin -a → -ae.
    w("alumna", "alumnae"),
    w("vertebra", "vertebrae"),
    w("differentia", "differentiae"),
    w("minutia", "minutiae"),
    w("vita", "vitae"),
    w("larva", "larvae"),
    w("postcava", "postcavae"),
    w("praecava", "praecavae"),
    w("uva", "uvae"),
    // Latin -ex → -ices.
    alt("apex", "apices", "apexes"),
    alt("codex", "codices", "codexes"),
    alt("index", "indices", "indexes"),
    alt("latex", "latices", "latexes"),
    alt("vertex", "vertices", "vertexes"),
    alt("vortex", "vortices", "vortexes"),
    // Latin -ix → -ices.
    alt("appendix", "appendices", "appendixes"),
    alt("radix", "radices", "radixes"),
    alt("helix", "helices", "helixes"),
    // Latin -is → -es.
    exact("axis", "axes"),
    w("crisis", "crises"),
    one_way("ellipsis", "ellipses"),
    w("genesis", "geneses"),
    w("oasis", "oases"),
    w("thesis", "theses"),
    w("testis", "testes"),
    w("base", "bases"),
    one_way("basis", "bases"),
    exact("alias", "aliases"),
    w("vedalia", "vedalias"),
    // -ch, -o, -s, -sh, -x, -z words that the suffix rules would get wrong.
    exact("use", "uses"),
    w("abuse", "abuses"),
    w("cause", "causes"),
    w("clause", "clauses"),
    w("cruse", "cruses"),
    w("excuse", "excuses"),
    w("fuse", "fuses"),
    w("house", "houses"),
    w("misuse", "misuses"),
    w("muse", "muses"),
    w("pause", "pauses"),
    w("ache", "aches"),
    w("topaz", "topazes"),
    alt("buffalo", "buffaloes", "buffalos"),
    w("potato", "potatoes"),
    w("tomato", "tomatoes"),
    // Uncountable.
    uncountable("equipment"),
    uncountable("information"),
    uncountable("jeans"),
    uncountable("money"),
    uncountable("news"),
    uncountable("rice"),
    // Exceptions to -f(e) → -ves.
    alt("dwarf", "dwarfs", "dwarves"),
    alt("hoof", "hoofs", "hooves"),
    w("thief", "thieves"),
    w("chive", "chives"),
    w("hive", "hives"),
    w("move", "moves"),
    // Exceptions to -y → -ies (the -ie singulars).
    w("movie", "movies"),
    w("cookie", "cookies"),
    // Exceptions to -um → -a.
    w("pretorium", "pretoriums"),
    w("agenda", "agendas"),
    alt("formula", "formulas", "formulae"),
    // Exceptions to -o → -oes.
    w("shoe", "shoes"),
    exact("toe", "toes"),
    w("graffiti", "graffiti"),
    // Abbreviations.
    exact("ID", "IDs"),
];

/// flect's general suffix rules `(singular suffix, plural suffix)`, in
/// priority order: the first suffix that ends the word wins.
const SUFFIXES: &[(&str, &str)] = &[
    // -f / -fe → -ves.
    ("tive", "tives"),
    ("eaf", "eaves"),
    ("oaf", "oaves"),
    ("afe", "aves"),
    ("arf", "arves"),
    ("rfe", "rves"),
    ("rf", "rves"),
    ("lf", "lves"),
    ("fe", "ves"),
    // -y → -ies after a consonant.
    ("ay", "ays"),
    ("ey", "eys"),
    ("oy", "oys"),
    ("quy", "quies"),
    ("uy", "uys"),
    ("y", "ies"),
    // French -eau.
    ("eau", "eaux"),
    // Latin -a → -ae (flect maps all of these to "bulae").
    ("bula", "bulae"),
    ("dula", "bulae"),
    ("lula", "bulae"),
    ("nula", "bulae"),
    ("vula", "bulae"),
    // Greek -on → -a.
    ("hedron", "hedra"),
    // Latin -um → -a.
    ("ium", "ia"),
    ("seum", "seums"),
    ("eum", "ea"),
    ("oum", "oa"),
    ("stracum", "straca"),
    ("dum", "da"),
    ("elum", "ela"),
    ("ilum", "ila"),
    ("olum", "ola"),
    ("ulum", "ula"),
    ("llum", "lla"),
    ("ylum", "yla"),
    ("imum", "ima"),
    ("ernum", "erna"),
    ("gnum", "gna"),
    ("brum", "bra"),
    ("crum", "cra"),
    ("terum", "tera"),
    ("serum", "sera"),
    ("trum", "tra"),
    ("antum", "anta"),
    ("atum", "ata"),
    ("entum", "enta"),
    ("etum", "eta"),
    ("itum", "ita"),
    ("otum", "ota"),
    ("utum", "uta"),
    ("ctum", "cta"),
    ("ovum", "ova"),
    // Latin -ix → -ices.
    ("trix", "trices"),
    // Latin/Greek -is → -es.
    ("iasis", "iases"),
    ("mesis", "meses"),
    ("kinesis", "kineses"),
    ("resis", "reses"),
    ("gnosis", "gnoses"),
    ("opsis", "opses"),
    ("ysis", "yses"),
    // -ch, -o, -s, -sh, -x, -z.
    ("ouse", "ouses"),
    ("lause", "lauses"),
    ("us", "uses"),
    ("ch", "ches"),
    ("io", "ios"),
    ("sh", "shes"),
    ("ss", "sses"),
    ("ez", "ezzes"),
    ("iz", "izzes"),
    ("tz", "tzes"),
    ("zz", "zzes"),
    ("ano", "anos"),
    ("lo", "los"),
    ("to", "tos"),
    ("oo", "oos"),
    ("o", "oes"),
    ("x", "xes"),
    // Uppercase abbreviations.
    ("S", "Ses"),
];

/// flect's acronyms, compared with the uppercased word. (flect's list also has
/// the mixed-case `gbps`, `kbps`, `Mbps`, `MoCA` and `WiFi`, which never equal
/// an uppercased word and so never match; they are left out.)
const ACRONYMS: &[&str] = &[
    "OK", "UTF8", "HTML", "JSON", "JWT", "ID", "UUID", "SQL", "ACK", "ACL", "ADSL", "AES", "ANSI",
    "API", "ARP", "ATM", "BGP", "BSS", "CCITT", "CHAP", "CIDR", "CIR", "CLI", "CPE", "CPU", "CRC",
    "CRT", "CSMA", "CMOS", "DCE", "DEC", "DES", "DHCP", "DNS", "DRAM", "DSL", "DSLAM", "DTE",
    "DMI", "EHA", "EIA", "EIGRP", "EOF", "ESS", "FCC", "FCS", "FDDI", "FTP", "GBIC", "GEPOF",
    "HDLC", "HTTP", "HTTPS", "IANA", "ICMP", "IDF", "IDS", "IEEE", "IETF", "IMAP", "IP", "IPS",
    "ISDN", "ISP", "LACP", "LAN", "LAPB", "LAPF", "LLC", "MAC", "MC", "MDF", "MIB", "MPLS", "MTU",
    "NAC", "NAT", "NBMA", "NIC", "NRZ", "NRZI", "NVRAM", "OSI", "OSPF", "OUI", "PAP", "PAT", "PC",
    "PIM", "PCM", "PDU", "POP3", "POTS", "PPP", "PPTP", "PTT", "PVST", "RAM", "RARP", "RFC", "RIP",
    "RLL", "ROM", "RSTP", "RTP", "RCP", "SDLC", "SFD", "SFP", "SLARP", "SLIP", "SMTP", "SNA",
    "SNAP", "SNMP", "SOF", "SRAM", "SSH", "SSID", "STP", "SYN", "TDM", "TFTP", "TIA", "TOFU",
    "UDP", "URL", "URI", "USB", "UTP", "VC", "VLAN", "VLSM", "VPN", "W3C", "WAN", "WEP", "WPA",
    "WWW",
];

/// The plural of `word`, exactly as `flect.Pluralize(word)` (flect v1.0.3)
/// computes it for ASCII input. For a Kubernetes resource, pass the
/// lowercased kind: `pluralize("healthcheckpolicy") == "healthcheckpolicies"`.
pub fn pluralize(word: &str) -> String {
    let Some(last) = last_word(word) else {
        return String::new();
    };

    // Whole-input dictionary lookups come first and are case-sensitive.
    if let Some(entry) = DICTIONARY.iter().find(|e| e.singular == word) {
        return entry.plural.to_string();
    }
    if is_known_plural(word) {
        return word.to_string();
    }

    let lower = last.to_lowercase();
    if is_known_plural(&lower) {
        return word.to_string();
    }
    if let Some(entry) = DICTIONARY.iter().find(|e| e.singular == lower) {
        let plural = if last == capitalize(&last) {
            capitalize(entry.plural)
        } else {
            entry.plural.to_string()
        };
        return replace_suffix(word, &last, &plural);
    }

    if let Some((singular, plural)) = suffix_rules().find(|(s, _)| last.ends_with(s)) {
        let inflected = format!("{}{}", &last[..last.len() - singular.len()], plural);
        return replace_suffix(word, &last, &inflected);
    }

    if lower.ends_with('s') {
        word.to_string()
    } else {
        format!("{word}s")
    }
}

/// Whether `word` is one of the dictionary's plurals or alternative plurals
/// (flect's plural-to-singular map).
fn is_known_plural(word: &str) -> bool {
    DICTIONARY
        .iter()
        .any(|e| !e.unidirectional && (e.plural == word || e.alternative == Some(word)))
}

/// Every suffix rule in flect's priority order, as `(suffix, replacement)`.
///
/// flect builds its list by prepending, for each rule, the rule itself and
/// then a rule mapping its plural to itself, so that a word that already has
/// the plural ending is kept. Dictionary entries (minus the exact ones) are
/// prepended after the suffix table, which puts them first, last entry first.
fn suffix_rules() -> impl Iterator<Item = (&'static str, &'static str)> {
    let dictionary = DICTIONARY
        .iter()
        .rev()
        .filter(|e| !e.exact)
        .map(|e| (e.singular, e.plural));
    dictionary
        .chain(SUFFIXES.iter().copied())
        .flat_map(|(singular, plural)| [(plural, plural), (singular, plural)])
}

/// flect's `ReplaceSuffix`: strip `old` from the end of `word` if it is there
/// (it may not be, when the last word was uppercased as an acronym), then
/// append `new`.
fn replace_suffix(word: &str, old: &str, new: &str) -> String {
    let stem = word.strip_suffix(old).unwrap_or(word);
    format!("{stem}{new}")
}

/// The first character in uppercase, the rest unchanged.
fn capitalize(s: &str) -> String {
    let mut chars = s.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

fn is_acronym(s: &str) -> bool {
    let upper = s.to_uppercase();
    ACRONYMS.contains(&upper.as_str())
}

/// Characters that separate words, besides whitespace.
const SEPARATORS: [char; 5] = ['_', ' ', ':', '-', '/'];

fn is_separator(c: char) -> bool {
    SEPARATORS.contains(&c) || c.is_whitespace()
}

/// Characters kept inside a word: letters, digits, backquote and the ASCII
/// punctuation (not the ASCII symbols `$ + < = > ^ | ~`).
fn is_word_char(c: char) -> bool {
    if c.is_ascii() {
        c.is_ascii_alphanumeric() || (c.is_ascii_punctuation() && !"$+<=>^|~".contains(c))
    } else {
        c.is_alphanumeric()
    }
}

/// The last word of `s` as flect splits it (`Ident.LastPart`), or `None` when
/// there is no word at all.
fn last_word(s: &str) -> Option<String> {
    let s = s.trim();
    if s.is_empty() {
        return None;
    }
    if is_acronym(s) {
        return Some(s.to_uppercase());
    }

    let mut last = None;
    let mut push = |part: &str| {
        if let Some(part) = clean_part(part) {
            last = Some(part);
        }
    };
    let mut current = String::new();
    let mut prev_upper = false;
    for c in s.chars() {
        let upper = c.is_uppercase();
        // A separator, or an uppercase letter after a non-uppercase one or
        // after a complete acronym, starts a new word (which keeps the
        // character; separators are trimmed off later).
        let starts_word = is_separator(c) || (upper && (!prev_upper || is_acronym(&current)));
        if starts_word {
            push(&current);
            current.clear();
            current.push(c);
        } else if is_word_char(c) {
            current.push(c);
        } else {
            push(&current);
            current.clear();
        }
        prev_upper = upper;
    }
    push(&current);
    last
}

/// flect's `xappend` for one part: trim whitespace, then each separator in
/// turn from both ends; uppercase a known acronym; drop an empty part.
fn clean_part(part: &str) -> Option<String> {
    let mut p = part.trim();
    for sep in SEPARATORS {
        p = p.trim_matches(sep);
    }
    if p.is_empty() {
        None
    } else if is_acronym(p) {
        Some(p.to_uppercase())
    } else {
        Some(p.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::pluralize;

    fn check(cases: &[(&str, &str)]) {
        let wrong: Vec<String> = cases
            .iter()
            .filter(|(word, want)| pluralize(word) != *want)
            .map(|(word, want)| format!("{word}: got {:?}, want {want:?}", pluralize(word)))
            .collect();
        assert!(wrong.is_empty(), "wrong plurals:\n{}", wrong.join("\n"));
    }

    #[test]
    fn kubebuilder_examples() {
        check(&[
            ("captain", "captains"),
            ("busybox", "busyboxes"),
            ("healthcheckpolicy", "healthcheckpolicies"),
            ("memcached", "memcacheds"),
            ("firstmate", "firstmates"),
            ("admiral", "admirals"),
            ("cronjob", "cronjobs"),
            ("guestbook", "guestbooks"),
        ]);
    }

    #[test]
    fn kubernetes_kinds() {
        check(&[
            ("pod", "pods"),
            ("service", "services"),
            ("endpoints", "endpoints"),
            ("endpointslice", "endpointslices"),
            ("ingress", "ingresses"),
            ("ingressclass", "ingressclasses"),
            ("networkpolicy", "networkpolicies"),
            ("storageclass", "storageclasses"),
            ("priorityclass", "priorityclasses"),
            ("csidriver", "csidrivers"),
            ("deployment", "deployments"),
            ("statefulset", "statefulsets"),
            ("daemonset", "daemonsets"),
            ("configmap", "configmaps"),
            ("secret", "secrets"),
            ("namespace", "namespaces"),
            ("horizontalpodautoscaler", "horizontalpodautoscalers"),
            ("prometheus", "prometheuses"),
            ("alertmanager", "alertmanagers"),
            ("httproute", "httproutes"),
            ("gateway", "gateways"),
        ]);
    }

    #[test]
    fn suffix_rules() {
        check(&[
            // -y
            ("policy", "policies"),
            ("city", "cities"),
            ("day", "days"),
            ("key", "keys"),
            ("boy", "boys"),
            ("guy", "guys"),
            ("soliloquy", "soliloquies"),
            // sibilants
            ("bus", "buses"),
            ("status", "statuses"),
            ("address", "addresses"),
            ("box", "boxes"),
            ("church", "churches"),
            ("dish", "dishes"),
            ("quiz", "quizzes"),
            ("fez", "fezzes"),
            ("waltz", "waltzes"),
            ("buzz", "buzzes"),
            ("matrix", "matrices"),
            // -is
            ("analysis", "analyses"),
            ("diagnosis", "diagnoses"),
            ("synopsis", "synopses"),
            ("crisis", "crises"),
            ("axis", "axes"),
            // -f / -fe
            ("wolf", "wolves"),
            ("knife", "knives"),
            ("leaf", "leaves"),
            ("scarf", "scarves"),
            ("dwarf", "dwarfs"),
            ("roof", "roofs"),
            ("native", "natives"),
            // -o
            ("hero", "heroes"),
            ("photo", "photos"),
            ("radio", "radios"),
            ("solo", "solos"),
            ("zoo", "zoos"),
            ("piano", "pianos"),
            ("potato", "potatoes"),
            // Latin and Greek
            ("datum", "data"),
            ("bacterium", "bacteria"),
            ("museum", "museums"),
            ("polyhedron", "polyhedra"),
            ("nebula", "nebulae"),
            ("plateau", "plateaux"),
            ("index", "indices"),
            ("vertex", "vertices"),
            ("dataindex", "dataindices"),
            ("matrixvertex", "matrixvertices"),
        ]);
    }

    #[test]
    fn dictionary_words() {
        check(&[
            ("person", "people"),
            ("child", "children"),
            ("ox", "oxen"),
            ("mouse", "mice"),
            ("louse", "lice"),
            ("man", "men"),
            ("woman", "women"),
            ("human", "humans"),
            ("foot", "feet"),
            ("tooth", "teeth"),
            ("goose", "geese"),
            ("sheep", "sheep"),
            ("fish", "fish"),
            ("species", "species"),
            ("series", "series"),
            ("criterion", "criteria"),
            ("phenomenon", "phenomena"),
            ("cactus", "cacti"),
            ("octopus", "octupuses"),
            ("alias", "aliases"),
            ("equipment", "equipment"),
            ("information", "information"),
            ("money", "money"),
            ("rice", "rice"),
            ("movie", "movies"),
            ("die", "dice"),
            ("ID", "IDs"),
            ("id", "ids"),
        ]);
    }

    #[test]
    fn compound_words_inflect_their_tail() {
        check(&[
            ("salesperson", "salespeople"),
            ("grandchild", "grandchildren"),
            ("superman", "supermen"),
            ("fieldmouse", "fieldmice"),
            ("backuppolicy", "backuppolicies"),
            ("networkequipment", "networkequipment"),
            // "ox", "axis", "die", "toe" and "use" match whole words only.
            ("box", "boxes"),
            ("taxis", "taxis"),
            ("indie", "indies"),
            ("tiptoe", "tiptoes"),
            ("reuse", "reuses"),
        ]);
    }

    #[test]
    fn plurals_are_kept() {
        check(&[
            ("news", "news"),
            ("data", "data"),
            ("media", "media"),
            ("people", "people"),
            ("children", "children"),
            ("fishes", "fishes"),
            ("indexes", "indexes"),
            ("policies", "policies"),
            ("boxes", "boxes"),
            ("endpoints", "endpoints"),
            ("metrics", "metrics"),
            ("jeans", "jeans"),
        ]);
    }

    #[test]
    fn acronyms_keep_flects_quirks() {
        check(&[
            ("api", "apis"),
            ("cidr", "cidrs"),
            ("url", "urls"),
            ("dns", "dnsDNSes"),
            ("ips", "ipsIPSes"),
            ("https", "httpsHTTPSes"),
            ("dnsrecord", "dnsrecords"),
        ]);
    }

    #[test]
    fn mixed_case_and_separators() {
        check(&[
            ("HealthCheckPolicy", "HealthCheckPolicies"),
            ("Person", "People"),
            ("SalesPerson", "SalesPeople"),
            ("DNSRecord", "DNSRecords"),
            ("foo_bar", "foo_bars"),
            ("user-id", "user-ids"),
            ("", ""),
            ("   ", ""),
        ]);
    }
}
