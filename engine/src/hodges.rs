//! Hodges notation for people (RULES.md §1): `P-8f`, `Lnx!9d`, `Lnx3hx2i`, burns and promotion shown.
