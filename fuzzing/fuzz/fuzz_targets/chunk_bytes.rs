#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzzing::chunk_bytes(data));
