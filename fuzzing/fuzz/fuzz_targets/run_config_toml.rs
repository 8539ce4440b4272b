#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzzing::run_config_toml(data));
