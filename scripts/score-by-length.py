#!/usr/bin/env python3
"""Score of engine A (the arena's rated engine) by game length, from arena game records.

    scripts/score-by-length.py docs/ladder/NAME.pgn [...]

For each record file: A's score over all games, over the games longer than 12 and 20 plies
(the arena's 6 random opening plies included), and the colour-swapped pairs by A's points
(0, 1 or 2 of 2). A pair split 1-1 is often an opening that decides the game for one colour
whoever plays it. A is the engine named in the record's first game as White or Black that is
not `alphabeta`/`random` when one of them is; otherwise the first game's Black.
"""
import re
import sys


def games(path):
    for g in open(path).read().split('[Event ')[1:]:
        tags = dict(re.findall(r'\[(\w+) "([^"]*)"\]', g))
        body = g.split('\n\n', 1)[1] if '\n\n' in g else ''
        body = re.sub(r'\{[^}]*\}', '', body)
        plies = [t for t in body.split() if not re.match(r'^\d+\.$', t) and t not in ('1-0', '0-1', '1/2-1/2', '*')]
        yield tags, len(plies)


def main():
    for path in sys.argv[1:]:
        rows = list(games(path))
        if not rows:
            print(f'{path}: no games')
            continue
        first = rows[0][0]
        baseline = lambda name: name.startswith('alphabeta') or name.startswith('random')
        a = first['White'] if baseline(first['Black']) and not baseline(first['White']) else first['Black']
        scores = []
        for tags, n in rows:
            side = 'Black' if tags['Black'] == a else 'White'
            res = tags['Result']
            s = 0.5 if res == '1/2-1/2' else float((res == '1-0') == (side == 'Black'))
            scores.append((s, n))
        print(f'{path}: A = {a}')
        print(f'  all games: {len(scores)}, score {sum(s for s, _ in scores) / len(scores):.3f}')
        for cut in (12, 20):
            sub = [s for s, n in scores if n > cut]
            if sub:
                print(f'  longer than {cut} plies: {len(sub)} games, score {sum(sub) / len(sub):.3f}')
        pairs = [scores[i][0] + scores[i + 1][0] for i in range(0, len(scores) - 1, 2)]
        print('  pairs by A\'s points: ' + ', '.join(f'{p:g}: {pairs.count(p)}' for p in sorted(set(pairs))))


if __name__ == '__main__':
    main()
