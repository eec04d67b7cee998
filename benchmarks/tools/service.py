#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""service: the web service a sandbox starts in the cold-start workload.

A small Flask application of the kind agents start to try their work (an
API over a SQLite store, JSON in and out, logging, a health check), with
the standard library modules such services load. It listens on 127.0.0.1
at a port the kernel picks, writes that port on its stdout (one line) once
it accepts connections, and serves until SIGTERM. Loopback only.

Usage: service.py
Needs python3-flask (make deps).
"""
import datetime
import decimal
import email.utils
import hashlib
import json
import logging
import os
import signal
import sqlite3
import sys
import threading
import uuid

from flask import Flask, jsonify, request
from werkzeug.serving import make_server

app = Flask('agent-service')
log = logging.getLogger('agent-service')
db = sqlite3.connect(':memory:', check_same_thread=False)
db.execute('CREATE TABLE items (id TEXT PRIMARY KEY, name TEXT, price TEXT, at TEXT)')
lock = threading.Lock()


@app.get('/health')
def health():
    return jsonify(status='ok', pid=os.getpid())


@app.post('/items')
def add_item():
    body = request.get_json(force=True)
    item = (str(uuid.uuid4()), str(body.get('name', '')),
            str(decimal.Decimal(str(body.get('price', '0'))).quantize(decimal.Decimal('0.01'))),
            datetime.datetime.now(datetime.timezone.utc).isoformat())
    with lock:
        db.execute('INSERT INTO items VALUES (?, ?, ?, ?)', item)
    return jsonify(id=item[0]), 201


@app.get('/items')
def items():
    with lock:
        rows = db.execute('SELECT id, name, price, at FROM items ORDER BY at').fetchall()
    etag = hashlib.sha256(json.dumps(rows).encode()).hexdigest()[:16]
    resp = jsonify([dict(zip(('id', 'name', 'price', 'at'), r)) for r in rows])
    resp.headers['ETag'] = etag
    resp.headers['Date'] = email.utils.formatdate(usegmt=True)
    return resp


def main():
    logging.basicConfig(level=logging.WARNING)
    server = make_server('127.0.0.1', 0, app, threaded=True)
    signal.signal(signal.SIGTERM, lambda *_: threading.Thread(target=server.shutdown).start())
    sys.stdout.write('%d\n' % server.server_port)
    sys.stdout.flush()
    server.serve_forever()


if __name__ == '__main__':
    main()
