//! A game: positions with history, repetition (RULES.md §9), results and the ply cap.
