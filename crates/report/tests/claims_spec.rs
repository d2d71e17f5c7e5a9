// SPDX-License-Identifier: GPL-2.0-only
//! The claims files of the repository parse, and a malformed one is refused
//! naming its line.
use std::path::Path;

use report::claims;

#[test]
fn repository_claims_files_parse() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../claims");
    let files = claims::load_all(&dir).expect("claims/*.toml parse");
    let c2tcp = files
        .iter()
        .find(|f| f.paper == "c2tcp")
        .expect("claims/c2tcp.toml");
    assert!(c2tcp.claims.len() >= 10, "C2TCP §VII–VIII has its claims");
}

fn refused(text: &str) -> String {
    format!(
        "{:#}",
        claims::parse(text, Path::new("bad.toml")).expect_err("refused")
    )
}

const FILE: &str = "paper = \"x\"\ntitle = \"X\"\n";
const CLAIM: &str = "[[claim]]\nid = \"a\"\nsection = \"§1\"\nstatement = \"s\"\nbench = \"b\"\n";

#[test]
fn unknown_metric_is_refused_at_its_line() {
    let text = format!(
        "{FILE}{CLAIM}[[claim.check]]\nwhat = \"value\"\nmetric = \"delay_typo\"\nof = {{ scheme = \"cubic\" }}\nat_most = 1\n"
    );
    let e = refused(&text);
    assert!(e.contains("bad.toml"), "{e}");
    assert!(e.contains("line 10"), "names the metric's line: {e}");
    assert!(e.contains("unknown metric \"delay_typo\""), "{e}");
}

#[test]
fn check_without_bound_or_needed_field_is_refused_with_a_line() {
    let no_bound = format!(
        "{FILE}{CLAIM}[[claim.check]]\nwhat = \"value\"\nmetric = \"jitter_ms\"\nof = {{ scheme = \"cubic\" }}\n"
    );
    let e = refused(&no_bound);
    assert!(e.contains("needs a bound") && e.contains("line 8"), "{e}");
    let no_to = format!(
        "{FILE}{CLAIM}[[claim.check]]\nwhat = \"ratio\"\nmetric = \"jitter_ms\"\nof = {{ scheme = \"cubic\" }}\nat_least = 1\n"
    );
    let e = refused(&no_to);
    assert!(e.contains("needs `to`") && e.contains("line 8"), "{e}");
    let typo = format!("{FILE}{CLAIM}benchh = \"c\"\n");
    let e = refused(&typo);
    assert!(
        e.contains("unknown field `benchh`") && e.contains("line 8"),
        "{e}"
    );
}

#[test]
fn claim_without_checks_or_duplicate_id_is_refused() {
    assert!(refused(&format!("{FILE}{CLAIM}")).contains("missing field `check`"));
    let check = "[[claim.check]]\nwhat = \"value\"\nmetric = \"jitter_ms\"\nof = { scheme = \"c\" }\nat_most = 1\n";
    let twice = format!("{FILE}{CLAIM}{check}{CLAIM}{check}");
    assert!(refused(&twice).contains("claim id \"a\" used twice"));
}
