// SPDX-License-Identifier: GPL-2.0
// The agent runtime of make container-check, run by node in a container:
// it holds a context in memory (AGENT_MB, anonymous) and a file it wrote
// and read back (page cache charged to the container), and runs the tool
// calls the test asks for as its children: /ctl/call-N holds a bash
// command; its stderr goes to /ctl/err-N, its end to /ctl/end-N
// ("CODE SIGNAL"). /ctl/ready holds the runtime's PID in the container.
'use strict';
const fs = require('fs');
const cp = require('child_process');
const mb = parseInt(process.env.AGENT_MB || '64', 10);
const ctx = [];
for (let i = 0; i < mb; i++)
	ctx.push(Buffer.alloc(1 << 20, `context line ${i} of the agent: it reads src/m${i % 97}.py\n`));
const cache = '/var/tmp/agent-cache';
fs.writeFileSync(cache, Buffer.alloc(32 << 20, 'cached file content\n'));
fs.readFileSync(cache);
fs.writeFileSync('/ctl/ready.tmp', String(process.pid));
fs.renameSync('/ctl/ready.tmp', '/ctl/ready');
setInterval(() => {
	for (const f of fs.readdirSync('/ctl')) {
		const m = /^call-(\d+)$/.exec(f);
		if (!m)
			continue;
		const cmd = fs.readFileSync(`/ctl/${f}`, 'utf8');
		fs.renameSync(`/ctl/${f}`, `/ctl/run-${m[1]}`);
		const err = fs.openSync(`/ctl/err-${m[1]}`, 'w');
		const c = cp.spawn('/bin/bash', ['-c', cmd], { stdio: ['ignore', 'ignore', err] });
		fs.closeSync(err);
		c.on('exit', (code, sig) => fs.writeFileSync(`/ctl/end-${m[1]}`, `${code} ${sig}`));
	}
}, 100);
