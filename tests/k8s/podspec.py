#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""The DaemonSet's container spec as a podman run, read from the manifest.

Usage: podspec.py DAEMONSET_YAML CONFIGMAP_YAML CONFIGMAP_DIR

Writes CONFIGMAP_DIR/<configmap name>/ the way the kubelet lays out a
ConfigMap volume (files behind a ..data link, so that a change is one
rename), then prints one JSON object for tests/k8s/image:
  image     the image reference of the container
  run       podman run arguments up to and including the image, then the
            container's args (command as --entrypoint)
  hostpaths [[path, type], ...] the hostPath volumes (the test creates a
            DirectoryOrCreate one, and requires a Directory one)
  probes    {livenessProbe: {...}, readinessProbe: {...}}: exec command,
            initialDelaySeconds, periodSeconds, timeoutSeconds,
            failureThreshold with the kubelet's defaults filled in
  grace     terminationGracePeriodSeconds
  ports     {name: containerPort, ...}: the container's ports, reached at
            the pod's address (tests/k8s/image gives the pod a network
            namespace of its own, PODSPEC_NETNS, as a pod has; without
            one, --network=none and no port may be declared)
A field the rig cannot honour (another volume type, env from a secret,
a second container, a hostPort) stops it with an error naming the field:
the test must not run a spec other than the one shipped.
"""
import json
import os
import sys

import yaml

PROBE_DEFAULTS = {"initialDelaySeconds": 0, "periodSeconds": 10,
                  "timeoutSeconds": 1, "failureThreshold": 3}
# Fields that only steer scheduling or the API server: nothing to run.
POD_IGNORED = {"nodeSelector", "tolerations", "priorityClassName",
               "automountServiceAccountToken", "hostPID", "volumes",
               "containers", "terminationGracePeriodSeconds"}
CONTAINER_KNOWN = {"name", "image", "imagePullPolicy", "command", "args",
                   "securityContext", "livenessProbe", "readinessProbe",
                   "resources", "volumeMounts", "env", "ports"}


def die(msg):
    sys.exit("podspec: " + msg)


def quantity_bytes(q):
    units = {"Ki": 1 << 10, "Mi": 1 << 20, "Gi": 1 << 30}
    for u, m in units.items():
        if str(q).endswith(u):
            return int(str(q)[:-2]) * m
    if str(q).isdigit():
        return int(q)
    die("memory quantity %r not understood" % q)


def configmap_volume(cm, top):
    """The kubelet's layout: NAME/..TS/FILE, NAME/..data -> ..TS,
    NAME/FILE -> ..data/FILE."""
    name = cm["metadata"]["name"]
    d = os.path.join(top, name)
    ts = os.path.join(d, "..initial")
    os.makedirs(ts, exist_ok=True)
    for key, text in cm.get("data", {}).items():
        with open(os.path.join(ts, key), "w") as f:
            f.write(text)
        os.chmod(os.path.join(ts, key), 0o644)
        link = os.path.join(d, key)
        if not os.path.lexists(link):
            os.symlink(os.path.join("..data", key), link)
    if not os.path.lexists(os.path.join(d, "..data")):
        os.symlink("..initial", os.path.join(d, "..data"))
    return d


def main():
    if len(sys.argv) != 4:
        die("usage: podspec.py DAEMONSET_YAML CONFIGMAP_YAML CONFIGMAP_DIR")
    ds = yaml.safe_load(open(sys.argv[1]))
    cms = {o["metadata"]["name"]: o for o in yaml.safe_load_all(open(sys.argv[2]))
           if o and o.get("kind") == "ConfigMap"}
    pod = ds["spec"]["template"]["spec"]
    for k in pod:
        if k not in POD_IGNORED:
            die("pod field %s is not run by this rig" % k)
    if len(pod["containers"]) != 1:
        die("%d containers: the rig runs one" % len(pod["containers"]))
    c = pod["containers"][0]
    for k in c:
        if k not in CONTAINER_KNOWN:
            die("container field %s is not run by this rig" % k)
    run = ["--name", "agentmmd"]
    if pod.get("hostPID"):
        run.append("--pid=host")
    # the pod's own network namespace: nothing of the host's
    netns = os.environ.get("PODSPEC_NETNS")
    run.append("--network=ns:" + netns if netns else "--network=none")
    ports = {}
    for p in c.get("ports", []):
        if set(p) - {"name", "containerPort", "protocol"}:
            die("port %s: fields %s are not run by this rig (no hostPort)" %
                (p.get("name"), sorted(set(p) - {"name", "containerPort", "protocol"})))
        if p.get("protocol", "TCP") != "TCP":
            die("port %s: protocol %s" % (p.get("name"), p["protocol"]))
        ports[p.get("name", str(p["containerPort"]))] = p["containerPort"]
    if ports and not netns:
        die("ports %s need a network namespace for the pod (PODSPEC_NETNS)" % sorted(ports))
    sc = c.get("securityContext", {})
    if set(sc) - {"privileged"}:
        die("securityContext fields %s are not run by this rig" % sorted(set(sc) - {"privileged"}))
    if sc.get("privileged"):
        run.append("--privileged")
    lim = c.get("resources", {}).get("limits", {})
    if set(lim) - {"memory"}:
        die("limits %s are not run by this rig" % sorted(set(lim) - {"memory"}))
    if "memory" in lim:
        run.append("--memory=%d" % quantity_bytes(lim["memory"]))
    for e in c.get("env", []):
        if "value" not in e:
            die("env %s without a plain value" % e.get("name"))
        run += ["--env", "%s=%s" % (e["name"], e["value"])]
    vols = {v["name"]: v for v in pod.get("volumes", [])}
    hostpaths = []
    for m in c.get("volumeMounts", []):
        v = vols.get(m["name"]) or die("volumeMount %s has no volume" % m["name"])
        if set(m) - {"name", "mountPath", "readOnly", "mountPropagation"}:
            die("volumeMount %s: fields %s" % (m["name"], sorted(set(m) - {"name", "mountPath", "readOnly", "mountPropagation"})))
        if "hostPath" in v:
            src = v["hostPath"]["path"]
            hostpaths.append([src, v["hostPath"].get("type", "")])
        elif "configMap" in v:
            cm = cms.get(v["configMap"]["name"]) or die("no ConfigMap %s" % v["configMap"]["name"])
            src = configmap_volume(cm, sys.argv[3])
            # the kubelet mounts ConfigMap volumes read-only
            m = dict(m, readOnly=True)
        else:
            die("volume %s: only hostPath and configMap are run by this rig" % m["name"])
        opts = ["ro" if m.get("readOnly") else "rw"]
        prop = m.get("mountPropagation", "None")
        if prop == "HostToContainer":
            opts.append("rslave")
        elif prop == "Bidirectional":
            opts.append("rshared")
        run += ["--volume", "%s:%s:%s" % (src, m["mountPath"], ",".join(opts))]
    cmd = c.get("command")
    if cmd:
        run += ["--entrypoint", json.dumps(cmd)]
    run.append(c["image"])
    run += c.get("args", [])
    probes = {}
    for kind in ("livenessProbe", "readinessProbe", "startupProbe"):
        p = c.get(kind)
        if not p:
            continue
        if "exec" not in p:
            die("%s is not an exec probe" % kind)
        q = dict(PROBE_DEFAULTS)
        q.update({k: v for k, v in p.items() if k != "exec"})
        q["command"] = p["exec"]["command"]
        probes[kind] = q
    print(json.dumps({"image": c["image"], "run": run, "hostpaths": hostpaths,
                      "probes": probes, "ports": ports,
                      "grace": pod.get("terminationGracePeriodSeconds", 30)}))


if __name__ == "__main__":
    main()
