#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""SPDX 2.3 SBOM (JSON) of a release tarball made by scripts/dist.sh.

Usage: scripts/sbom.py TARBALL NAME VERSION EPOCH > NAME.spdx.json

One package (the source release) and every regular file in the tarball:
its path below the top directory, SHA-1 and SHA-256, and the licence its
SPDX-License-Identifier line names (NOASSERTION where it has none). The
package's verification code is SPDX's (the SHA-1 of the sorted file SHA-1s).
Reproducible: created at EPOCH (the release's commit time), the namespace
derived from the files' checksums, files in the tarball's order.
"""
import hashlib
import json
import re
import sys
import tarfile
import time

# the identifier line within a file's first lines, as SPDX and the kernel
# write it (comment syntax of C, shell, make, YAML, markdown or roff)
SPDX_LINE = re.compile(rb'SPDX-License-Identifier:\s*([A-Za-z0-9.+ ()-]+?)\s*(?:\*/|-->|$)')
LICENSE_ID = re.compile(r'^[A-Za-z0-9.+-]+$')
HEAD_LINES = 12


def licence_of(data):
    """The licence expression a file's SPDX line names, or NOASSERTION."""
    for line in data.splitlines()[:HEAD_LINES]:
        m = SPDX_LINE.search(line)
        if m:
            expr = m.group(1).decode('ascii')
            ids = [w for w in re.split(r'[ ()]+', expr)
                   if w and w not in ('AND', 'OR', 'WITH')]
            if ids and all(LICENSE_ID.match(i) for i in ids):
                return expr, ids
    return 'NOASSERTION', []


def spdx_ref(path):
    """An SPDXID for @path: letters, digits, '.' and '-' only."""
    return 'SPDXRef-File-' + re.sub(r'[^A-Za-z0-9.-]', '-', path)


def main(argv):
    if len(argv) != 5 or not argv[4].isdigit():
        sys.stderr.write('usage: scripts/sbom.py TARBALL NAME VERSION EPOCH\n')
        return 2
    tarball, name, version, epoch = argv[1], argv[2], argv[3], int(argv[4])
    files, sha1s, seen_ids, refs = [], [], set(), set()
    with tarfile.open(tarball, 'r:*') as tar:
        for member in tar:
            if not member.isfile():
                continue
            data = tar.extractfile(member).read()
            path = member.name.split('/', 1)[1] if '/' in member.name else member.name
            sha1 = hashlib.sha1(data).hexdigest()
            expr, ids = licence_of(data)
            seen_ids.update(ids)
            ref = spdx_ref(path)
            if ref in refs:
                sys.stderr.write('sbom: two files map to the SPDXID %s\n' % ref)
                return 1
            refs.add(ref)
            sha1s.append(sha1)
            files.append({
                'fileName': './' + path,
                'SPDXID': ref,
                'checksums': [
                    {'algorithm': 'SHA1', 'checksumValue': sha1},
                    {'algorithm': 'SHA256',
                     'checksumValue': hashlib.sha256(data).hexdigest()},
                ],
                'licenseConcluded': 'NOASSERTION',
                'licenseInfoInFiles': ids or ['NOASSERTION'],
                'copyrightText': 'NOASSERTION',
            })
    if not files:
        sys.stderr.write('sbom: no files in %s\n' % tarball)
        return 1
    code = hashlib.sha1(''.join(sorted(sha1s)).encode()).hexdigest()
    digest = hashlib.sha256(''.join(sorted(sha1s)).encode()).hexdigest()
    created = time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime(epoch))
    pkg = 'SPDXRef-Package-' + name
    doc = {
        'spdxVersion': 'SPDX-2.3',
        'dataLicense': 'CC0-1.0',
        'SPDXID': 'SPDXRef-DOCUMENT',
        'name': '%s-%s' % (name, version),
        'documentNamespace': 'https://spdx.org/spdxdocs/%s-%s-%s' % (name, version, digest),
        'creationInfo': {'created': created,
                         'creators': ['Tool: %s scripts/sbom.py' % name]},
        'packages': [{
            'name': name,
            'SPDXID': pkg,
            'versionInfo': version,
            'packageFileName': tarball.rsplit('/', 1)[-1],
            'downloadLocation': 'NOASSERTION',
            'filesAnalyzed': True,
            'packageVerificationCode': {'packageVerificationCodeValue': code},
            'licenseConcluded': 'NOASSERTION',
            'licenseDeclared': 'GPL-2.0-only',
            'licenseInfoFromFiles': sorted(seen_ids) or ['NOASSERTION'],
            'copyrightText': 'NOASSERTION',
            'primaryPackagePurpose': 'SOURCE',
        }],
        'files': files,
        'relationships': [{'spdxElementId': 'SPDXRef-DOCUMENT',
                           'relationshipType': 'DESCRIBES',
                           'relatedSpdxElement': pkg}] +
                         [{'spdxElementId': pkg,
                           'relationshipType': 'CONTAINS',
                           'relatedSpdxElement': f['SPDXID']} for f in files],
    }
    json.dump(doc, sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write('\n')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
