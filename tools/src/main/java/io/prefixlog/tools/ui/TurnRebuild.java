package io.prefixlog.tools.ui;

import io.prefixlog.core.delta.DeltaDecoder;
import io.prefixlog.core.delta.DeltaException;
import io.prefixlog.core.text.Sha256;
import io.prefixlog.schemas.delta.DeltaRecord;
import io.prefixlog.schemas.request.BodyEncoding;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Rebuilds one turn from its chain of records (its keyframe, then each delta down to it) and says
 * whether the result is what the record promised. Unlike {@code reconstruct}, which only hands out
 * verified bodies, a page shows what was rebuilt even when it does not match, with the digest it
 * has: the page is where someone looks at a mismatch.
 */
final class TurnRebuild {
  private TurnRebuild() {}

  /**
   * What rebuilding came to.
   *
   * @param body the rebuilt bytes, or null when the chain could not be applied
   * @param sha256 the SHA-256 of {@code body} as computed here (lower-case hex), or null
   * @param base the rebuilt bytes of the delta's base (null for a keyframe, or when missing)
   * @param problem why the body is missing or does not match, or {@code ""}
   */
  record Result(
      DeltaRecord record,
      byte[] body,
      String sha256,
      boolean verified,
      byte[] base,
      String problem) {}

  /**
   * Rebuilds the last of {@code chain}.
   *
   * @param chain records by seq: the target and the bases it needs (others are ignored)
   * @param seq the turn to rebuild
   */
  static Result rebuild(Map<Long, DeltaRecord> chain, long seq) {
    DeltaRecord target = chain.get(seq);
    Objects.requireNonNull(target, "the target record");
    Map<Long, byte[]> bodies = new HashMap<>();
    Optional<String> problem = body(chain, seq, bodies, 0);
    byte[] body = bodies.get(seq);
    byte[] base = target.isKeyframe() ? null : bodies.get(target.baseSeq());
    if (body == null) {
      return new Result(target, null, null, false, base, problem.orElse("not rebuilt"));
    }
    String sha = Sha256.hex(body);
    String why = "";
    if (target.bodyLen() == null || body.length != target.bodyLen()) {
      why = "rebuilt " + body.length + " bytes, body_len says " + target.bodyLen();
    } else if (!sha.equalsIgnoreCase(String.valueOf(target.bodySha256()))) {
      why = "the rebuilt body's SHA-256 is not the record's body_sha256";
    }
    return new Result(target, body, sha, why.isEmpty(), base, why);
  }

  /** Rebuilds turn {@code seq} into {@code bodies}; empty when it was, else why not. */
  private static Optional<String> body(
      Map<Long, DeltaRecord> chain, long seq, Map<Long, byte[]> bodies, int depth) {
    if (bodies.containsKey(seq)) {
      return Optional.empty();
    }
    DeltaRecord r = chain.get(seq);
    if (r == null) {
      return Optional.of("turn " + seq + " is not on the topic (erased or compacted away)");
    }
    if (depth > chain.size()) {
      return Optional.of("turn " + seq + ": the bases form a loop");
    }
    if (r.isKeyframe()) {
      Optional<BodyEncoding> encoding = BodyEncoding.fromWireName(r.bodyEncoding());
      if (encoding.isEmpty() || r.body() == null) {
        return Optional.of("turn " + seq + ": keyframe without a readable body");
      }
      try {
        bodies.put(seq, encoding.get().decode(r.body()));
      } catch (IllegalArgumentException e) {
        return Optional.of("turn " + seq + ": keyframe body is not valid " + r.bodyEncoding());
      }
      return Optional.empty();
    }
    if (r.baseSeq() == null || r.baseSeq() >= seq || r.ops() == null) {
      return Optional.of("turn " + seq + ": delta without an earlier base_seq and ops");
    }
    Optional<String> baseProblem = body(chain, r.baseSeq(), bodies, depth + 1);
    if (baseProblem.isPresent()) {
      return baseProblem;
    }
    byte[] base = bodies.get(r.baseSeq());
    if (!Sha256.hex(base).equalsIgnoreCase(String.valueOf(r.baseSha256()))) {
      return Optional.of(
          "turn "
              + seq
              + ": base_sha256 is not the digest of base turn "
              + r.baseSeq()
              + " as rebuilt");
    }
    try {
      bodies.put(seq, DeltaDecoder.apply(base, r.ops()));
    } catch (DeltaException e) {
      return Optional.of(
          "turn " + seq + ": ops do not fit base turn " + r.baseSeq() + ": " + e.getMessage());
    }
    return Optional.empty();
  }

  /** The seqs a turn needs, itself first: its base, its base's base, … down to a keyframe. */
  static List<Long> ancestry(Map<Long, TurnInfo> turns, long seq) {
    List<Long> seqs = new java.util.ArrayList<>();
    Long next = seq;
    while (next != null && seqs.size() <= turns.size()) {
      seqs.add(next);
      TurnInfo t = turns.get(next);
      next = t == null || t.keyframe() || t.baseSeq() >= next ? null : t.baseSeq();
    }
    return List.copyOf(seqs);
  }
}
