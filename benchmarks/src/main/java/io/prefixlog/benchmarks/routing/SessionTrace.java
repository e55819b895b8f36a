package io.prefixlog.benchmarks.routing;

import java.util.SplittableRandom;

/**
 * Deterministic agent-like traffic: {@code sessions} sessions, each a conversation that starts with
 * one of {@value #SYSTEM_PROMPTS} shared system prompts of {@value #SYSTEM_CHUNKS} chunks and grows
 * by 1–4 new chunks per turn, restarting once it passes {@code maxChunks}. Each request is the
 * whole conversation so far (prefix-chained keys, as chained hashes give), from a session drawn
 * uniformly, 10 ms after the previous one. A request holds a slice of its conversation's key array,
 * so memory is the distinct keys, not the lookups.
 */
final class SessionTrace {
  static final int SYSTEM_PROMPTS = 4;
  static final int SYSTEM_CHUNKS = 8;
  static final long CHUNK_TOKENS = 256;
  static final long START_MS = 1_790_000_000_000L;
  static final long SPACING_MS = 10;

  final long[][] conversation; // per request: the key array it reads a prefix of
  final int[] length; // per request: chunks
  final long[] session; // per request: session key
  final long[] tail; // per request: tokens beyond the last full chunk
  final long lookups;
  final long distinctKeys;

  private SessionTrace(
      long[][] conversation,
      int[] length,
      long[] session,
      long[] tail,
      long lookups,
      long distinctKeys) {
    this.conversation = conversation;
    this.length = length;
    this.session = session;
    this.tail = tail;
    this.lookups = lookups;
    this.distinctKeys = distinctKeys;
  }

  static SessionTrace generate(int requests, int sessions, int maxChunks, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    long nextKey = 1;
    long[][] system = new long[SYSTEM_PROMPTS][SYSTEM_CHUNKS];
    for (long[] prompt : system) {
      for (int i = 0; i < prompt.length; i++) {
        prompt[i] = mix(nextKey++);
      }
    }
    long[][] current = new long[sessions][];
    int[] used = new int[sessions];
    long[][] conversation = new long[requests][];
    int[] length = new int[requests];
    long[] session = new long[requests];
    long[] tail = new long[requests];
    long lookups = 0;
    for (int r = 0; r < requests; r++) {
      int s = random.nextInt(sessions);
      if (current[s] == null || used[s] > maxChunks) {
        current[s] = new long[maxChunks + 4 + SYSTEM_CHUNKS];
        System.arraycopy(system[random.nextInt(SYSTEM_PROMPTS)], 0, current[s], 0, SYSTEM_CHUNKS);
        used[s] = SYSTEM_CHUNKS;
      }
      int added = 1 + random.nextInt(4);
      for (int i = 0; i < added; i++) {
        current[s][used[s]++] = mix(nextKey++);
      }
      conversation[r] = current[s];
      length[r] = used[s];
      session[r] = mix(s + 0x5E55_1000L);
      tail[r] = random.nextInt((int) CHUNK_TOKENS);
      lookups += used[s];
    }
    return new SessionTrace(conversation, length, session, tail, lookups, nextKey - 1);
  }

  int requests() {
    return length.length;
  }

  long timestampMs(int r) {
    return START_MS + r * SPACING_MS;
  }

  long seqLen(int r) {
    return length[r] * CHUNK_TOKENS + tail[r];
  }

  /** splitmix64's finalizer: a bijection, so keys stay distinct and look like hashes. */
  static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
    z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
    return z ^ (z >>> 31);
  }
}
