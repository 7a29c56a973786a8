//! Raw bytes as a JSON scenario: parse, build, run with an event cap, check the results.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        aqmsim_core::fuzzing::check_text(text, false, 1);
    }
});
