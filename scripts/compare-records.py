#!/usr/bin/env python3
"""Game-by-game comparison of two arena runs on the same openings (same --seed, --openings).

    scripts/compare-records.py docs/ladder/X.pgn docs/ladder/Y.pgn

Games are matched by their Round tag (the arena's game number, so the same opening and
colours); for each file, A's score over the games both files hold, and how many results
differ and which way. Two settings of one engine that differ in only a few games cannot be
told apart by their totals, whatever those are.
"""
import re
import sys


def scores(path):
    out = {}
    for g in open(path).read().split('[Event ')[1:]:
        t = dict(re.findall(r'\[(\w+) "([^"]*)"\]', g))
        baseline = lambda name: name.startswith('alphabeta') or name.startswith('random')
        a_black = not baseline(t['Black'])
        res = t['Result']
        out[int(t['Round'])] = 0.5 if res == '1/2-1/2' else float((res == '1-0') == a_black)
    return out


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    x, y = scores(sys.argv[1]), scores(sys.argv[2])
    common = sorted(set(x) & set(y))
    if not common:
        sys.exit('no games in common (different --games or record files?)')
    sx = sum(x[r] for r in common) / len(common)
    sy = sum(y[r] for r in common) / len(common)
    diff = [r for r in common if x[r] != y[r]]
    better_x = sum(1 for r in diff if x[r] > y[r])
    print(f'{len(common)} games in common: A scores {sx:.3f} in {sys.argv[1]}, {sy:.3f} in {sys.argv[2]}')
    print(f'results that differ: {len(diff)} ({better_x} better in the first, {len(diff) - better_x} in the second)')


if __name__ == '__main__':
    main()
