#!/usr/bin/env python3
"""Summarise a --argus-verify-tags JSON report (docs/report-schema.md):
one line per check, then per-kernel totals."""
import json
import sys

report = json.load(open(sys.argv[1]))
for check in report['checks']:
    line = '  %-9s %-22s %-13s %s' % (check['status'], check['kind'],
                                      check['op'], check['location'])
    if check['kind'] == 'assert':
        line += '  "%s"' % check['predicate']
    if check['reason']:
        line += '  (%s)' % check['reason']
    print(line)
    for cex in check['counterexamples']:
        loops = ', '.join('iteration %d' % l['iv'] for l in cex['loops'])
        print('            counterexample: block %s, thread %d (warp %d, lane %d), slot %d%s'
              % (cex['block'], cex['thread'], cex['warp'], cex['lane'],
                 cex['slot'], ', ' + loops if loops else ''))
for kernel in report['kernels']:
    mine = [c for c in report['checks'] if c['kernel'] == kernel['name']]
    count = {s: sum(c['status'] == s for c in mine)
             for s in ('proved', 'violated', 'unknown')}
    print('kernel @%s: %d proved, %d violated, %d unknown (%d solver queries, %.0f ms)'
          % (kernel['name'], count['proved'], count['violated'],
             count['unknown'], kernel['queries'], kernel['milliseconds']))
