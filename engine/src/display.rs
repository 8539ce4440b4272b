//! The board as people read it: kanji or English piece names, Black at the bottom, coordinates on both edges.
