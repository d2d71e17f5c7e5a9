// SPDX-License-Identifier: GPL-2.0-only
//! Scenario files (`harness::plan::CheckedScenario::parse`, what
//! `CheckedScenario::load` does with a file's text: TOML, serde, then
//! every check). What parses survives the trips a bench makes it take: to JSON
//! inside a job and back, and to TOML and back, unchanged and still valid.
#![no_main]
use harness::plan::CheckedScenario;
use harness::scenario::Scenario;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(checked) = CheckedScenario::parse(text) else {
        return;
    };
    let sc = checked.into_scenario();
    let json = serde_json::to_string(&sc).expect("a scenario serializes to JSON");
    let back: Scenario = serde_json::from_str(&json)
        .unwrap_or_else(|e| panic!("a scenario's JSON does not read back: {e}\n{json}"));
    assert_eq!(back, sc, "JSON round trip changed the scenario: {json}");
    CheckedScenario::check(back).expect("the JSON round trip of a valid scenario is valid");
    if let Ok(toml_text) = toml::to_string(&sc) {
        let again = CheckedScenario::parse(&toml_text)
            .map(CheckedScenario::into_scenario)
            .unwrap_or_else(|e| panic!("a scenario written as TOML does not parse: {e:#}\n{toml_text}"));
        assert_eq!(again, sc, "TOML round trip changed the scenario:\n{toml_text}");
    }
});
