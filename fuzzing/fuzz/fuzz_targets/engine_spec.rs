#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzzing::engine_spec(data));
