#!/usr/bin/env python3
"""Add up JUnit/xUnit reports (CTest, lit, pytest) into one line:
'N passed, N failed, N skipped'. Exits 1 when anything failed or nothing ran."""
import sys
import xml.etree.ElementTree as ET

passed = failed = skipped = 0
for path in sys.argv[1:]:
    for case in ET.parse(path).getroot().iter('testcase'):
        if case.find('failure') is not None or case.find('error') is not None:
            failed += 1
        elif case.find('skipped') is not None:
            skipped += 1
        else:
            passed += 1
print('%d passed, %d failed, %d skipped' % (passed, failed, skipped))
sys.exit(1 if failed or not passed else 0)
