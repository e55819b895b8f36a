#!/usr/bin/python3
"""A KV-event publisher in vLLM's wire format, for prefixlog's tests.

Written for prefixlog from the format's description (no vLLM code): a PUB socket sends
[topic, seq (8 bytes, big-endian), msgpack batch]; a ROUTER socket answers replay requests
[identity, b"", start_seq] from a bounded buffer of the last batches, ending with
END_SEQ (eight 0xff bytes) and an empty payload. Batches are positional arrays
[ts, events, data_parallel_rank]; events are legacy tagged arrays or maps with "type".

Driven over stdin, one command per line; every command answers with zero or more
"expect ..." lines (what prefixlog must make of what was sent) and then one "ok" line:

  encoding array|map            how the next events are encoded
  hashes int|signed|bytes       uint64 (vLLM's default), negative int64 (old builtin hashing), raw digests
  batch array|map               the outer batch as a positional array or a map
  layout with-topic|without-topic   replay replies as vLLM >= 0.26 or older sends them
  send N                        N new batches; "expect batch <json>" for each
  resend                        the last batch again, same seq and payload (a slow-joiner probe)
  drop A B                      batches A..B go to the replay buffer but never out live
  unknown                       a batch with event types prefixlog does not know
  garbage                       malformed messages: "expect dead <reason>" and "expect lost <seq>"
  restart                       a new process: sockets re-bound on the same ports, seq from 0
  quit

Usage: kv_publisher.py --topic kv --buffer 16 [--no-replay]; prints "ready <pub> <router|->".
"""

import argparse
import collections
import hashlib
import json
import os
import sys
import time

import msgpack
import zmq

END_SEQ = (-1).to_bytes(8, "big", signed=True)
U64 = (1 << 64) - 1


def be8(seq):
    return seq.to_bytes(8, "big")


def bind(socket, endpoint):
    """Binds a free loopback port, or again the same endpoint after a restart (retrying while
    the closed socket still holds it)."""
    if endpoint is None:
        socket.bind("tcp://127.0.0.1:*")
        return socket.getsockopt_string(zmq.LAST_ENDPOINT)
    for _ in range(100):
        try:
            socket.bind(endpoint)
            return endpoint
        except zmq.ZMQError as error:
            if error.errno != zmq.EADDRINUSE:
                raise
            time.sleep(0.05)
    socket.bind(endpoint)
    return endpoint


class Publisher:
    def __init__(self, topic, buffer, replay):
        self.topic = topic.encode("utf-8")
        self.buffer_size = buffer
        self.with_replay = replay
        self.context = zmq.Context()
        self.pub_endpoint = None
        self.router_endpoint = None
        self.run = 0
        self.encoding = "array"
        self.hashes = "int"
        self.outer = "array"
        self.layout = "with-topic"
        self.withheld = set()
        self.open()

    # -- sockets -----------------------------------------------------------------------------

    def open(self):
        self.pub = self.context.socket(zmq.PUB)
        self.pub.setsockopt(zmq.LINGER, 0)
        self.pub.setsockopt(zmq.SNDHWM, 100000)
        self.pub_endpoint = bind(self.pub, self.pub_endpoint)
        self.router = None
        if self.with_replay:
            self.router = self.context.socket(zmq.ROUTER)
            self.router.setsockopt(zmq.LINGER, 0)
            self.router_endpoint = bind(self.router, self.router_endpoint)
        self.seq = 0
        self.last = None
        self.buffer = collections.deque(maxlen=self.buffer_size)

    def close(self):
        self.pub.close(0)
        if self.router is not None:
            self.router.close(0)

    def publish(self, seq, payload, live=True):
        self.buffer.append((seq, payload))
        self.last = (seq, payload)
        if live and seq not in self.withheld:
            self.pub.send_multipart([self.topic, be8(seq), payload])

    def serve_replay(self):
        frames = self.router.recv_multipart()
        if len(frames) != 3 or frames[1] != b"" or len(frames[2]) != 8:
            print("invalid replay request", file=sys.stderr, flush=True)
            return
        identity, start = frames[0], int.from_bytes(frames[2], "big")
        for seq, payload in list(self.buffer):
            if seq >= start:
                if self.layout == "with-topic":
                    self.router.send_multipart([identity, b"", self.topic, be8(seq), payload])
                else:
                    self.router.send_multipart([identity, b"", be8(seq), payload])
        if self.layout == "with-topic":
            self.router.send_multipart([identity, b"", b"", END_SEQ, b""])
        else:
            self.router.send_multipart([identity, b"", END_SEQ, b""])

    # -- content -----------------------------------------------------------------------------

    def digest(self, seq, i):
        return hashlib.sha256(("%d:%d:%d" % (self.run, seq, i)).encode()).digest()

    def hash_value(self, seq, i):
        """The wire hash and prefixlog's hex for it."""
        digest = self.digest(seq, i)
        unsigned = int.from_bytes(digest, "big") & U64  # the last 8 bytes, as vLLM's int mode
        if self.hashes == "bytes":
            return digest, digest.hex()
        if self.hashes == "signed":
            signed = unsigned - (1 << 64) if unsigned >= (1 << 63) else unsigned
            return signed, "%016x" % (signed & U64)
        return unsigned, "%016x" % unsigned

    def stored(self, seq):
        """One BlockStored of 1..4 blocks, encoded the current way, and its expected record."""
        blocks = 1 + seq % 4
        pairs = [self.hash_value(seq, i) for i in range(blocks)]
        parent = self.hash_value(seq - 1, 0) if seq > 0 else None
        tokens = [(seq * 131 + t) % 32000 for t in range(16 * blocks)]
        lora = "adapter-a" if seq % 5 == 1 else None
        extra = [["adapter-a"] if lora else None for _ in range(blocks)] if seq % 2 else None
        fields = [
            ("block_hashes", [p[0] for p in pairs]),
            ("parent_block_hash", parent[0] if parent else None),
            ("token_ids", tokens),
            ("block_size", 16),
            ("lora_id", 1 if lora else None),
            ("medium", "GPU"),
            ("lora_name", lora),
            ("extra_keys", extra),
            ("group_idx", 0),
            ("kv_cache_spec_kind", "full_attention"),
            ("kv_cache_spec_sliding_window", None),
            ("locality", None),
        ]
        expected = {"type": "BlockStored", "block_hashes": [p[1] for p in pairs]}
        if parent:
            expected["parent_block_hash"] = parent[1]
        expected["token_count"] = len(tokens)
        expected["block_size"] = 16
        if lora:
            expected["lora_id"] = 1
            expected["lora_name"] = lora
        expected["medium"] = "GPU"
        expected["group_idx"] = 0
        expected["kv_cache_spec_kind"] = "full_attention"
        if extra is not None:
            expected["extra_keys"] = extra
        return self.encode("BlockStored", fields), expected

    def removed(self, seq):
        value, hexed = self.hash_value(seq - 1, 0)
        fields = [("block_hashes", [value]), ("medium", "GPU"), ("group_idx", 0), ("locality", None)]
        expected = {"type": "BlockRemoved", "block_hashes": [hexed], "medium": "GPU", "group_idx": 0}
        return self.encode("BlockRemoved", fields), expected

    def encode(self, tag, fields):
        if self.encoding == "array":
            return [tag] + [value for _, value in fields]
        # msgspec's map form: the tag first, fields defaulting to None left out when None
        event = {"type": tag}
        for name, value in fields:
            if value is not None or name in ("parent_block_hash", "lora_id", "lora_name", "medium"):
                event[name] = value
        return event

    def batch(self, seq, events, expected_events):
        # the scheduler's time.time(): a restarted run's batches are later than the old run's
        ts = 1750000000.0 + self.run * 3600.0 + seq * 0.25
        if self.outer == "map":
            body = {"ts": ts, "events": events, "data_parallel_rank": 0}
        else:
            body = [ts, events, 0]
        payload = msgpack.packb(body, use_bin_type=True)
        expected = {"seq": seq, "engine_ts": ts, "data_parallel_rank": 0, "events": expected_events}
        return payload, expected

    def next_batch(self, extra=None):
        seq = self.seq
        self.seq += 1
        events, expected = [], []
        event, record = self.stored(seq)
        events.append(event)
        expected.append(record)
        if seq % 3 == 2:
            event, record = self.removed(seq)
            events.append(event)
            expected.append(record)
        if extra:
            for event, record in extra:
                events.append(event)
                expected.append(record)
        payload, expect = self.batch(seq, events, expected)
        self.publish(seq, payload)
        return expect

    # -- commands ----------------------------------------------------------------------------

    def command(self, line):
        words = line.split()
        out = []
        if not words:
            return out
        name, args = words[0], words[1:]
        if name == "encoding":
            self.encoding = args[0]
        elif name == "hashes":
            self.hashes = args[0]
        elif name == "batch":
            self.outer = args[0]
        elif name == "layout":
            self.layout = args[0]
        elif name == "send":
            for _ in range(int(args[0])):
                out.append("expect batch " + json.dumps(self.next_batch(), separators=(",", ":")))
        elif name == "resend":
            seq, payload = self.last
            self.pub.send_multipart([self.topic, be8(seq), payload])
        elif name == "drop":
            self.withheld.update(range(int(args[0]), int(args[1]) + 1))
        elif name == "unknown":
            value, hexed = self.hash_value(self.seq, 0)
            inactive = (
                {"type": "BlockInactive", "block_hashes": [value], "medium": "GPU", "group_idx": 0,
                 "origin": "REUSED"},
                {"type": "BlockInactive", "block_hashes": [hexed], "medium": "GPU", "group_idx": 0},
            )
            future = (["FutureEvent", [1, 2], "GPU", 5], {"type": "FutureEvent"})
            out.append("expect batch " + json.dumps(self.next_batch([inactive, future]),
                                                    separators=(",", ":")))
        elif name == "garbage":
            topic = self.topic
            self.pub.send_multipart([topic, be8(self.seq)])
            out.append("expect dead bad_frame_count")
            self.pub.send_multipart([topic, be8(self.seq), b"\x90", b"extra"])
            out.append("expect dead bad_frame_count")
            self.pub.send_multipart([topic, be8(self.seq)[1:], b"\x90"])
            out.append("expect dead bad_seq_frame")
            for payload, reason in ((b"\xc1", "malformed_msgpack"),
                                    (msgpack.packb("hello"), "not_a_batch")):
                seq = self.seq
                self.seq += 1
                self.publish(seq, payload)
                out.append("expect dead " + reason)
                out.append("expect lost %d" % seq)
        elif name == "restart":
            self.close()
            self.run += 1
            self.withheld = set()
            self.open()
        else:
            raise ValueError("unknown command " + line)
        return out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--topic", default="")
    parser.add_argument("--buffer", type=int, default=10000)
    parser.add_argument("--no-replay", action="store_true")
    options = parser.parse_args()
    publisher = Publisher(options.topic, options.buffer, not options.no_replay)
    print("ready %s %s" % (publisher.pub_endpoint, publisher.router_endpoint or "-"), flush=True)
    stdin = sys.stdin.fileno()
    pending = b""
    while True:
        poller = zmq.Poller()
        poller.register(stdin, zmq.POLLIN)
        if publisher.router is not None:
            poller.register(publisher.router, zmq.POLLIN)
        for socket, _ in poller.poll():
            if socket != stdin:
                publisher.serve_replay()
                continue
            chunk = os.read(stdin, 65536)
            if not chunk:
                publisher.close()
                publisher.context.term()
                return
            pending += chunk
            while b"\n" in pending:
                line, pending = pending.split(b"\n", 1)
                line = line.decode("utf-8").strip()
                if line == "quit":
                    publisher.close()
                    publisher.context.term()
                    return
                for out in publisher.command(line):
                    print(out, flush=True)
                print("ok", flush=True)


if __name__ == "__main__":
    main()
