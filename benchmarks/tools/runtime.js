// SPDX-License-Identifier: GPL-2.0
//
// runtime.js: the agent runtime of one sandbox in agentload's real-tool
// workload (agentload --tools real). A node process, as the agent runtimes
// of the traces are: it holds a context heap (conversation messages: strings
// and token arrays) of the traces' baseline times the scale, and for each
// planned call it churns that heap (replaces ~3% of it, as the model thinks),
// waits the planned gap, runs the tool call with bash as a child (the tool's
// output is kept in the context, as an agent keeps it) and records the
// call's latency. Everything is deterministic given the plan and the seed.
//
// Usage: node runtime.js PLAN RESULTS HEAP_MB SEED WORKSPACE
//   PLAN     lines "gap_s<TAB>retry<TAB>kind<TAB>arg" (written by agentload)
//   RESULTS  appended per call: "index<TAB>latency_ms<TAB>exit<TAB>signal<TAB>kind"
//   WORKSPACE  a prepared workspace (prepare.sh): proj/, venv/, wheelhouse/
'use strict';
const fs = require('fs');
const cp = require('child_process');
const path = require('path');

const [planFile, resultsFile, heapMbArg, seedArg, ws] = process.argv.slice(2);
if (!ws) {
	process.stderr.write('usage: node runtime.js PLAN RESULTS HEAP_MB SEED WORKSPACE\n');
	process.exit(2);
}
const heapMb = Number(heapMbArg);
const proj = path.join(ws, 'proj');

// xorshift32: own PRNG so the heap's content repeats exactly
let rs = (Number(seedArg) >>> 0) || 1;
function rnd() {
	rs ^= rs << 13; rs >>>= 0;
	rs ^= rs >>> 17;
	rs ^= rs << 5; rs >>>= 0;
	return rs;
}
const ALPHA = 'abcdefghijklmnopqrstuvwxyz0123456789 _-.,:;{}()[]=+"\n';
function text(n) {
	const parts = [];
	for (let i = 0; i < n; i += 64) {
		let s = '';
		for (let j = 0; j < 64; j++)
			s += ALPHA[rnd() % ALPHA.length];
		parts.push(s);
	}
	return parts.join('').slice(0, n);
}
// One message: ~8 KB of text, a token array (~4 KB), a little metadata.
const MSG_BYTES = 8192 + 512 * 8 + 256;
function message(i) {
	const tokens = new Array(512);
	for (let k = 0; k < 512; k++)
		tokens[k] = rnd() % 50000;
	return { id: i, role: i % 2 ? 'assistant' : 'user', content: text(8192),
		 tokens, meta: { t: i, tools: [] } };
}

const context = [];
const nmsg = Math.max(1, Math.round(heapMb * 1048576 / MSG_BYTES));
for (let i = 0; i < nmsg; i++)
	context.push(message(i));

const ntests = fs.readdirSync(path.join(proj, 'tests')).filter((f) => /^test_m\d+\.py$/.test(f)).length;
const env = {
	PATH: '/usr/sbin:/usr/bin:/sbin:/bin', HOME: ws, LANG: 'C.UTF-8',
	GIT_AUTHOR_NAME: 'agent', GIT_AUTHOR_EMAIL: 'agent@example.invalid',
	GIT_COMMITTER_NAME: 'agent', GIT_COMMITTER_EMAIL: 'agent@example.invalid',
	GIT_AUTHOR_DATE: '2024-03-01T12:00:00Z', GIT_COMMITTER_DATE: '2024-03-01T12:00:00Z',
	GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1', GIT_PAGER: 'cat',
	PIP_DISABLE_PIP_VERSION_CHECK: '1', PIP_NO_INPUT: '1',
};
const PYTEST = 'python3 -m pytest -q -p no:cacheprovider';
const PIP = '-m pip install -q --no-index --no-deps --force-reinstall --find-links ../wheelhouse agenttool';

// The command of a call kind (the kinds and their mix: agentload.c).
function command(kind, arg) {
	const m = arg % ntests;
	switch (kind) {
	case 'pytest': return `${PYTEST} tests/test_m${m}.py`;
	case 'pytest-suite': return `${PYTEST} tests`;
	case 'python': return `python3 scripts/build_objects.py ${arg}`;
	case 'pip': return `../venv/bin/python ${PIP}`;
	case 'source':
		return arg % 2 ? `source ../venv/bin/activate && python ${PIP} && python -c 'import agenttool; print(agenttool.run())'`
			: `source ../venv/bin/activate && ${PYTEST.replace('python3', 'python')} tests/test_m${m}.py`;
	case 'git':
		switch (arg % 5) {
		case 0: return 'git status';
		case 1: return 'git diff HEAD~3 --stat && git diff HEAD~1';
		case 2: return 'git log --stat -n 20';
		case 3: return 'git grep -n "def " -- src tests';
		default: return `echo "# edit ${arg}" >> src/proj/m${m}.py && git commit -q -am "edit m${m}" && git show --stat HEAD`;
		}
	case 'find':
		return arg % 2 ? "find . -name '*.py' -newer setup.cfg -print"
			: "find .. -path ../venv -prune -o -type f -name '*.[ch]' -print | xargs wc -l";
	case 'ls': return arg % 2 ? 'ls -la . src/proj tests native' : 'ls -R .. | head -200';
	case 'grep': return arg % 2 ? 'grep -rn "def build" src tests' : 'grep -rn --include=*.py -c "import" .';
	case 'cc': return `mkdir -p build && gcc -O2 -Wall -c native/m${m}.c -o build/m${m}.o`;
	default: throw new Error(`unknown call kind ${kind}`);
	}
}

const plan = fs.readFileSync(planFile, 'utf8').split('\n').filter((l) => l && l[0] !== '#')
	.map((l) => { const f = l.split('\t'); return { gap: Number(f[0]), retry: Number(f[1]), kind: f[2], arg: Number(f[3]) }; });

function sleep(s) {
	if (s > 0)
		Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, s * 1000);
}

let next = nmsg;
plan.forEach((c, i) => {
	// churn: replace ~3% of the context while the model "thinks"
	for (let j = 0; j < Math.floor(context.length / 32) + 1; j++)
		context[rnd() % context.length] = message(next++);
	sleep(c.gap);
	const cmd = command(c.kind, c.arg);
	const t0 = process.hrtime.bigint();
	const r = cp.spawnSync('/bin/bash', ['-c', cmd], { cwd: proj, env, maxBuffer: 256 << 20,
							    stdio: ['ignore', 'pipe', 'pipe'] });
	const ms = Number(process.hrtime.bigint() - t0) / 1e6;
	const out = (r.stdout || '').toString() + (r.stderr || '').toString();
	// the agent keeps (the head of) the tool's output in its context
	context.push({ id: next++, role: 'tool', content: out.slice(0, 16384), meta: { cmd } });
	const status = r.status === null ? -1 : r.status;
	fs.appendFileSync(resultsFile, `${i}\t${ms.toFixed(3)}\t${status}\t${r.signal || ''}\t${c.kind}\n`);
	if (status !== 0 || r.error)
		process.stderr.write(`runtime: call ${i} (${c.kind}: ${cmd}) failed: exit ${status} ${r.signal || ''} ${r.error || ''}\n${out.slice(-2000)}\n`);
});
