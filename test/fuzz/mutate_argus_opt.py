#!/usr/bin/env python3
"""Mutation fuzzing of argus-opt's parser, verifiers and passes.

Each mutant is an example kernel with a few random edits: a token deleted,
two tokens swapped, a number replaced by a random (often huge, negative or
zero) one, a line deleted or duplicated, a character inserted. Every run
must end with exit status 0 (accepted) or 1 (diagnosed): a signal (crash,
assertion), another status or a timeout is a failure, and the input is kept
for reproduction.

With ``--pass FLAG`` (repeatable, e.g. ``--pass=--argus-to-nvptx``) every
mutant that parses and verifies is also run through each of those passes or
pipelines, as a user would; ``--argus-verify-tags`` may also exit 2
(unknown). ``--time-budget S`` stops starting new mutants after S seconds
(the mutants are the same for a seed; how many run depends on the machine).
"""

import argparse
import concurrent.futures
import os
import random
import re
import subprocess
import sys
import time

TOKEN = re.compile(r'"[^"\n]*"|[%#!^@]?[A-Za-z_][\w.$-]*|-?\d+(?:\.\d+)?(?:e[+-]?\d+)?|\S')
NUMBERS = [0, 1, -1, 2, 3, 7, 8, 31, 64, 65, 127, 1023, 1024, 4096, 65536,
           2**31 - 1, 2**31, 2**32, 2**63 - 1, -2**63, 10**30]


def tokenize(text):
    return [(m.start(), m.end()) for m in TOKEN.finditer(text)]


def mutate(text, rng, max_edits=3):
    for _ in range(rng.randint(1, max_edits)):
        toks = tokenize(text)
        if not toks:
            break
        kind = rng.randrange(7)
        if kind in (1, 6) and len(toks) < 2:
            kind = 0  # two-token edits need two tokens
        if kind == 0:  # delete a token
            s, e = rng.choice(toks)
            text = text[:s] + text[e:]
        elif kind == 1:  # swap two tokens
            (s1, e1), (s2, e2) = sorted(rng.sample(toks, 2))
            text = text[:s1] + text[s2:e2] + text[e1:s2] + text[s1:e1] + text[e2:]
        elif kind == 2:  # replace a number (also inside layout strings)
            nums = [m.span() for m in re.finditer(r'-?\d+', text)]
            if nums:
                s, e = rng.choice(nums)
                text = text[:s] + str(rng.choice(NUMBERS)) + text[e:]
        elif kind == 3:  # delete a line
            lines = text.split('\n')
            del lines[rng.randrange(len(lines))]
            text = '\n'.join(lines)
        elif kind == 4:  # duplicate a line
            lines = text.split('\n')
            i = rng.randrange(len(lines))
            lines.insert(rng.randrange(len(lines) + 1), lines[i])
            text = '\n'.join(lines)
        elif kind == 5:  # insert a character
            pos = rng.randrange(len(text) + 1)
            text = text[:pos] + rng.choice('()<>[]{},:;"%#!x0-=') + text[pos:]
        else:  # copy a token over another
            (s1, e1), (s2, e2) = rng.sample(toks, 2)
            if s2 > s1:
                text = text[:s2] + text[s1:e1] + text[e2:]
            else:
                text = text[:s1] + text[s2:e2] + text[e1:]
    return text


def run_tool(tool, args, text, timeout, ok_codes=(0, 1)):
    """(failure or None, exit status, stderr tail)."""
    try:
        proc = subprocess.run([tool] + args + ['-o', os.devnull, '-'],
                              input=text.encode(), stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, timeout=timeout)
    except subprocess.TimeoutExpired:
        return 'timeout', None, b''
    if proc.returncode in ok_codes:
        return None, proc.returncode, b''
    return 'exit %d' % proc.returncode, proc.returncode, proc.stderr[-2000:]


def run_one(tool, text, timeout, passes=(), deadline=None):
    """Parse and verify `text`; when it is valid, run it through `passes`.
    Returns (failure, stderr, what ran) with failure None when all is well;
    'skipped' when the time budget ran out before it started."""
    if deadline is not None and time.monotonic() > deadline:
        return 'skipped', b'', ''
    what, code, err = run_tool(tool, ['--verify-each'], text, timeout)
    if what or code != 0:
        return what, err, '--verify-each'
    for p in passes:
        ok = (0, 1, 2) if p.startswith('--argus-verify-tags') else (0, 1)
        what, _, err = run_tool(tool, [p], text, timeout, ok)
        if what:
            return what, err, p
    return None, b'', 'valid'


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument('--tool', required=True)
    ap.add_argument('--count', type=int, default=2000)
    ap.add_argument('--seed', default='1',
                    help="an integer, or 'date' for today's (a rotating seed)")
    ap.add_argument('--jobs', type=int, default=os.cpu_count() or 2)
    ap.add_argument('--timeout', type=float, default=20.0)
    ap.add_argument('--crash-dir', default='fuzz-crashes')
    ap.add_argument('--pass', dest='passes', action='append', default=[],
                    metavar='FLAG', help='also run valid mutants through FLAG '
                    '(e.g. --pass=--argus-to-nvptx); repeatable')
    ap.add_argument('--max-edits', type=int, default=3, metavar='N',
                    help='edits per mutant: 1 to N (1 keeps more mutants valid)')
    ap.add_argument('--time-budget', type=float, default=None, metavar='S',
                    help='start no new mutant after S seconds')
    ap.add_argument('inputs', nargs='+')
    args = ap.parse_args()

    seeds = [open(p).read() for p in args.inputs]
    seed = int(time.strftime('%Y%m%d')) if args.seed == 'date' else int(args.seed)
    print('seed %d' % seed)
    rng = random.Random(seed)
    mutants = [mutate(rng.choice(seeds), rng, max(1, args.max_edits))
               for _ in range(args.count)]
    deadline = (time.monotonic() + args.time_budget
                if args.time_budget is not None else None)

    failures = 0
    valid = 0
    skipped = 0
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        futures = {pool.submit(run_one, args.tool, m, args.timeout, args.passes,
                               deadline): i
                   for i, m in enumerate(mutants)}
        for fut in concurrent.futures.as_completed(futures):
            i = futures[fut]
            what, err, ran = fut.result()
            if what == 'skipped':
                skipped += 1
                continue
            if what is None:
                valid += ran == 'valid'
                continue
            failures += 1
            os.makedirs(args.crash_dir, exist_ok=True)
            path = os.path.join(args.crash_dir, 'mutant-%d.mlir' % i)
            with open(path, 'w') as f:
                f.write(mutants[i])
            print('FAIL %s (argus-opt %s): %s\n%s' %
                  (path, ran, what, err.decode(errors='replace')))
    if args.passes:
        print('valid mutants through %s: %d' % (' '.join(args.passes), valid))
    if args.time_budget is not None:
        print('mutants run: %d of %d (time budget %gs)' %
              (args.count - skipped, args.count, args.time_budget))
    print('mutants: %d, failures: %d' % (args.count, failures))
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
