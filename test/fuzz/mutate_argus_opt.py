#!/usr/bin/env python3
"""Mutation fuzzing of argus-opt's parser, verifiers and passes.

Each mutant is an example kernel with a few random edits: a token deleted,
two tokens swapped, a number replaced by a random (often huge, negative or
zero) one, a line deleted or duplicated, a character inserted, a kernel
copied next to itself as a function that is not a kernel, a register
layout given a huge (replicated) slot mode (issue 54). Every run
must end with exit status 0 (accepted) or 1 (diagnosed): a signal (crash,
assertion), another status or a timeout is a failure, and the input is kept
for reproduction.

With ``--pass FLAG`` (repeatable, e.g. ``--pass=--argus-to-nvptx``) every
mutant that parses and verifies is also run through each of those passes or
pipelines, as a user would; ``--argus-verify-tags`` may also exit 2
(unknown). ``--time-budget S`` stops starting new mutants after S seconds
(the mutants are the same for a seed; how many run depends on the machine).
``--output PATH`` is the ``-o`` of the runs through the passes (``/dev/full``:
every output must fail with a message, exit 1, never an LLVM fatal error).

``--batch N`` (the long run, long_run.sh) joins N mutants with ``// -----``
into one input and runs ``argus-opt --split-input-file`` over it, once to
parse and verify and once per ``--pass`` over the valid ones: each chunk is
processed on its own (a fresh context, diagnosed chunks do not stop the
others), and every chunk must come back as one piece of the output (a
distinct ``--output-split-marker``; a diagnosed chunk gives an empty piece).
A batch that fails (a signal, another status, a timeout, an LLVM fatal error
or assertion message, a missing piece) is rerun one mutant per process as
without ``--batch``, which keeps each failing mutant; a batch failure no
single mutant reproduces is a failure too and keeps the whole batch. A
mutant that itself contains a split marker always runs alone. With
``--dedup`` a valid mutant whose IR (as printed, without locations) is that
of a mutant already sent through the passes is not run through them again
and shares that mutant's outcome: one-edit mutants that stay valid mostly
differ from another only in comments or spacing.
"""

import argparse
import concurrent.futures
import hashlib
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import threading
import time

TOKEN = re.compile(r'"[^"\n]*"|[%#!^@]?[A-Za-z_][\w.$-]*|-?\d+(?:\.\d+)?(?:e[+-]?\d+)?|\S')
NUMBERS = [0, 1, -1, 2, 3, 7, 8, 31, 64, 65, 127, 1023, 1024, 4096, 65536,
           2**31 - 1, 2**31, 2**32, 2**63 - 1, -2**63, 10**30]


def _matching_brace(text, open_at):
    """The index just past the brace that closes text[open_at] ('{'), or -1."""
    depth = 0
    for k in range(open_at, len(text)):
        if text[k] == '{':
            depth += 1
        elif text[k] == '}':
            depth -= 1
            if depth == 0:
                return k + 1
    return -1


def copy_as_helper(text, rng):
    """A kernel's function copied next to it as a function that is not a
    kernel (its attributes dropped, another name): argus ops outside a
    kernel crashed the lowering (issue 54)."""
    starts = [m for m in re.finditer(r'func\.func\s+(?:private\s+)?@([\w$.-]+)', text)]
    if not starts:
        return text
    m = rng.choice(starts)
    attrs = text.find('attributes', m.end())
    body = text.find('{', m.end())
    if body < 0:
        return text
    if 0 <= attrs < body:  # drop `attributes {...}` up to the body's brace
        a_open = text.find('{', attrs)
        a_end = _matching_brace(text, a_open)
        if a_end < 0:
            return text
        body = text.find('{', a_end)
        head = text[m.start():attrs] + text[a_end:body]
    else:
        head = text[m.start():body]
    end = _matching_brace(text, body)
    if end < 0:
        return text
    helper = head.replace('@' + m.group(1), '@' + m.group(1) + '_helper', 1) + \
        text[body:end]
    return text[:end] + '\n\n' + helper + text[end:]


# A register layout's slot mode made huge (replicated: stride 0): a thread
# with billions of slots ran the lowering out of memory (issue 54).
HUGE_SLOTS = [2**16, 2**20, 2**31 - 1, 2**32 - 1, 2**40]


def huge_layout(text, rng):
    layouts = list(re.finditer(r'"\((\d+),(\d+)\):\((\d+),(\d+)\)"', text))
    if not layouts:
        return text
    m = rng.choice(layouts)
    t, v, ts, vs = m.groups()
    new = '"(%s,%d):(%s,%s)"' % (t, rng.choice(HUGE_SLOTS), ts,
                                 rng.choice(['0', vs]))
    return text[:m.start()] + new + text[m.end():]


def tokenize(text):
    return [(m.start(), m.end()) for m in TOKEN.finditer(text)]


def mutate(text, rng, max_edits=3):
    for _ in range(rng.randint(1, max_edits)):
        toks = tokenize(text)
        if not toks:
            break
        kind = rng.randrange(9)
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
        elif kind == 7:  # a kernel copied as a function that is not one
            text = copy_as_helper(text, rng)
        elif kind == 8:  # a register layout with a huge slot mode
            text = huge_layout(text, rng)
        else:  # copy a token over another
            (s1, e1), (s2, e2) = rng.sample(toks, 2)
            if s2 > s1:
                text = text[:s2] + text[s1:e1] + text[e2:]
            else:
                text = text[:s1] + text[s2:e2] + text[e1:]
    return text


# Messages of a crash whatever the exit status (report_fatal_error without a
# crash diagnostic exits with 1, like a diagnosed input).
FATAL = (b'LLVM ERROR:', b'Assertion `', b'PLEASE submit a bug report',
         b'UNREACHABLE executed')
SPLIT = '// -----'
# --split-input-file also flags near misses of the marker ("// ---"): a
# mutant containing this runs alone.
NEAR_SPLIT = '// ---'
OUT_SPLIT = '// ARGUS-FUZZ-CHUNK-END'


# --timeout is CPU time where prlimit can limit it (a loaded machine makes
# runs slow, not failures), with WALL_FACTOR times it as the wall-clock limit
# (a hang that sleeps); elsewhere it is wall-clock time.
PRLIMIT = shutil.which('prlimit')
WALL_FACTOR = 10


def limited(cmd, seconds):
    """(cmd under a CPU-time limit of `seconds`, its wall-clock limit)."""
    if not PRLIMIT:
        return cmd, seconds
    cpu = max(1, int(seconds + 0.5))
    return [PRLIMIT, '--cpu=%d:%d' % (cpu, cpu + 5)] + cmd, seconds * WALL_FACTOR


def status(code):
    return 'timeout (CPU)' if code == -signal.SIGXCPU else 'exit %d' % code


def fatal(err):
    return next((m.decode() for m in FATAL if m in err), None)


# Where runs through --pass write their output (--output; /dev/full: every
# output stream must fail with a message, not an LLVM fatal error).
PASS_OUTPUT = [os.devnull]


def run_tool(tool, args, text, timeout, ok_codes=(0, 1), output=None):
    """(failure or None, exit status, stderr tail)."""
    cmd, wall = limited([tool] + args + ['-o', output or os.devnull, '-'], timeout)
    try:
        proc = subprocess.run(cmd, input=text.encode(), stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, timeout=wall)
    except subprocess.TimeoutExpired:
        return 'timeout', None, b''
    if proc.returncode in ok_codes:
        msg = fatal(proc.stderr)
        if msg:
            return 'exit %d with %r' % (proc.returncode, msg), proc.returncode, \
                proc.stderr[-2000:]
        return None, proc.returncode, b''
    return status(proc.returncode), proc.returncode, proc.stderr[-2000:]


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
        what, _, err = run_tool(tool, [p], text, timeout, ok, PASS_OUTPUT[0])
        if what:
            return what, err, p
    return None, b'', 'valid'


def run_split(tool, args, texts, timeout, ok_codes):
    """Runs `texts` as the chunks of one --split-input-file input. Returns
    (None, pieces) with one output piece per chunk, or (failure, stderr)."""
    cmd, wall = limited([tool, '--split-input-file', '--output-split-marker=' + OUT_SPLIT]
                        + args + ['-o', '-', '-'], timeout + len(texts) * timeout / 10)
    try:
        proc = subprocess.run(cmd, input=('\n%s\n' % SPLIT).join(texts).encode(),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              timeout=wall)
    except subprocess.TimeoutExpired:
        return 'timeout', b''
    if proc.returncode not in ok_codes:
        return status(proc.returncode), proc.stderr[-2000:]
    msg = fatal(proc.stderr)
    if msg:
        return 'exit %d with %r' % (proc.returncode, msg), proc.stderr[-2000:]
    pieces = proc.stdout.split(OUT_SPLIT.encode())
    if len(pieces) != len(texts):
        return '%d output pieces for %d chunks' % (len(pieces), len(texts)), \
            proc.stderr[-2000:]
    return None, pieces


def run_batch(tool, first, texts, timeout, passes=(), deadline=None, seen=None):
    """Runs mutants first.. (`texts`) as split inputs: parse and verify, then
    each of `passes` over the valid ones. Returns (results, batch failures):
    results maps each mutant's index to what run_one returns; a batch failure
    is (failure, stderr, what ran, the texts of the batch) when the batch
    failed but none of its mutants alone. With `seen` (a dict from IR
    digests to the first mutant with that IR, and a lock), a valid mutant
    whose IR is already there gets (None, b'', 'same IR as N') and is not
    run through the passes."""
    if deadline is not None and time.monotonic() > deadline:
        return {first + k: ('skipped', b'', '') for k in range(len(texts))}, []
    results = {}
    batch_failures = []
    alone = [first + k for k, t in enumerate(texts) if NEAR_SPLIT in t]
    for i in alone:
        results[i] = run_one(tool, texts[i - first], timeout, passes)
    idx = [first + k for k, t in enumerate(texts) if NEAR_SPLIT not in t]
    what, out = run_split(tool, ['--verify-each'], [texts[i - first] for i in idx],
                          timeout, (0, 1))
    if what:
        for i in idx:
            results[i] = run_one(tool, texts[i - first], timeout, passes)
        if all(results[i][0] is None for i in idx):
            batch_failures.append((what, out, '--verify-each',
                                   [texts[i - first] for i in idx]))
        return results, batch_failures
    valid = []
    for i, piece in zip(idx, out):
        if not piece.strip():
            results[i] = (None, b'', '--verify-each')
        elif seen is None or not passes:
            valid.append(i)
        else:
            digest = hashlib.sha1(piece.strip()).digest()
            with seen[1]:
                other = seen[0].setdefault(digest, i)
            if other == i:
                valid.append(i)
            else:
                results[i] = (None, b'', 'same IR as %d' % other)
    for p in passes:
        ok = (0, 1, 2) if p.startswith('--argus-verify-tags') else (0, 1)
        todo = [i for i in valid if i not in results]
        if not todo:
            break
        vtexts = [texts[i - first] for i in todo]
        what, err = run_split(tool, [p], vtexts, timeout, ok)
        if not what:
            continue
        found = False
        for i in todo:
            w, _, e = run_tool(tool, [p], texts[i - first], timeout, ok,
                               PASS_OUTPUT[0])
            if w:
                results[i] = (w, e, p)
                found = True
        if not found:
            batch_failures.append((what, err, p, vtexts))
    for i in valid:
        results.setdefault(i, (None, b'', 'valid'))
    return results, batch_failures


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument('--tool', required=True)
    ap.add_argument('--count', type=int, default=2000)
    ap.add_argument('--seed', default='1',
                    help="an integer, or 'date' for today's (a rotating seed)")
    ap.add_argument('--jobs', type=int, default=os.cpu_count() or 2)
    ap.add_argument('--timeout', type=float, default=20.0,
                    help='CPU seconds per mutant and run (a batch: this plus a '
                    'tenth of it per mutant), %d times that in wall-clock '
                    'time; wall-clock seconds without prlimit' % WALL_FACTOR)
    ap.add_argument('--crash-dir', default='fuzz-crashes')
    ap.add_argument('--pass', dest='passes', action='append', default=[],
                    metavar='FLAG', help='also run valid mutants through FLAG '
                    '(e.g. --pass=--argus-to-nvptx); repeatable')
    ap.add_argument('--max-edits', type=int, default=3, metavar='N',
                    help='edits per mutant: 1 to N (1 keeps more mutants valid)')
    ap.add_argument('--time-budget', type=float, default=None, metavar='S',
                    help='start no new mutant (or batch) after S seconds')
    ap.add_argument('--batch', type=int, default=0, metavar='N',
                    help='N mutants per argus-opt run (--split-input-file); '
                    '0: one process per mutant and run')
    ap.add_argument('--dedup', action='store_true',
                    help='with --batch: run a valid mutant through the passes '
                    'only when its IR differs from every one run before')
    ap.add_argument('--output', default=os.devnull, metavar='PATH',
                    help='the -o of the runs through --pass (e.g. /dev/full: '
                    'the write fails; exit 1 with a message is expected)')
    ap.add_argument('inputs', nargs='+')
    args = ap.parse_args()
    PASS_OUTPUT[0] = args.output

    seeds = [open(p).read() for p in args.inputs]
    seed = int(time.strftime('%Y%m%d')) if args.seed == 'date' else int(args.seed)
    print('seed %d' % seed, flush=True)
    rng = random.Random(seed)
    t0 = time.monotonic()
    deadline = (t0 + args.time_budget if args.time_budget is not None else None)
    size = max(1, args.batch)
    seen = ({}, threading.Lock()) if args.dedup else None

    def batches():
        """(first index, mutants) in order; the mutants of a seed are the
        same whatever the batch size."""
        for first in range(0, args.count, size):
            yield first, [mutate(rng.choice(seeds), rng, max(1, args.max_edits))
                          for _ in range(min(size, args.count - first))]

    def run(first, texts):
        if args.batch:
            return texts, run_batch(args.tool, first, texts, args.timeout,
                                    args.passes, deadline, seen)
        return texts, ({first: run_one(args.tool, texts[0], args.timeout,
                                       args.passes, deadline)}, [])

    failures = 0
    valid = 0
    parsed = 0
    skipped = 0
    batch_fails = 0
    same_ir = {}  # mutant -> the mutant with its IR that ran the passes
    outcome = {}  # mutant -> True (valid), False (failed)
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        pending = set()
        todo = batches()

        def collect(done):
            nonlocal failures, valid, parsed, skipped, batch_fails
            for fut in done:
                first = fut.first
                texts, (results, bfails) = fut.result()
                for i, (what, err, ran) in sorted(results.items()):
                    if what == 'skipped':
                        skipped += 1
                        continue
                    if what is None and ran.startswith('same IR as '):
                        parsed += 1
                        same_ir[i] = int(ran.split()[-1])
                        continue
                    if what is None:
                        valid += ran == 'valid'
                        parsed += ran != '--verify-each'
                        outcome[i] = ran == 'valid'
                        continue
                    parsed += ran != '--verify-each'
                    outcome[i] = False
                    failures += 1
                    os.makedirs(args.crash_dir, exist_ok=True)
                    path = os.path.join(args.crash_dir, 'mutant-%d.mlir' % i)
                    with open(path, 'w') as f:
                        f.write(texts[i - first])
                    print('FAIL %s (argus-opt %s): %s\n%s' %
                          (path, ran, what, err.decode(errors='replace')),
                          flush=True)
                for what, err, ran, btexts in bfails:
                    batch_fails += 1
                    os.makedirs(args.crash_dir, exist_ok=True)
                    path = os.path.join(args.crash_dir, 'batch-%d%s.mlir' % (
                        first, re.sub(r'[^\w-]', '_', ran)))
                    with open(path, 'w') as f:
                        f.write(('\n%s\n' % SPLIT).join(btexts))
                    print('FAIL %s (argus-opt --split-input-file %s): %s, but no '
                          'mutant alone\n%s' % (path, ran, what,
                                                err.decode(errors='replace')),
                          flush=True)

        for first, texts in todo:
            # A bounded queue: mutants are made as batches finish.
            while len(pending) >= 2 * args.jobs:
                done, pending = concurrent.futures.wait(
                    pending, return_when=concurrent.futures.FIRST_COMPLETED)
                collect(done)
            fut = pool.submit(run, first, texts)
            fut.first = first
            pending.add(fut)
        collect(concurrent.futures.wait(pending)[0])
    elapsed = time.monotonic() - t0
    failures += batch_fails
    for i, other in sorted(same_ir.items()):
        if outcome.get(other):
            valid += 1
        else:  # that mutant failed in a pass
            failures += 1
            print('FAIL mutant %d: the IR of %s' % (
                i, os.path.join(args.crash_dir, 'mutant-%d.mlir' % other)))
    if args.passes:
        print('valid mutants through %s: %d' % (' '.join(args.passes), valid))
    if seen is not None and args.passes:
        print('distinct valid IR run through the passes: %d' % len(seen[0]))
    if args.time_budget is not None:
        print('mutants run: %d of %d (time budget %gs)' %
              (args.count - skipped, args.count, args.time_budget))
    print('valid mutants (parsed and verified): %d of %d run; %.0f s, %.1f '
          'mutants/s' % (parsed if args.passes else valid, args.count - skipped,
                         elapsed, (args.count - skipped) / max(elapsed, 1e-9)))
    print('mutants: %d, failures: %d' % (args.count, failures))
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
