package io.prefixlog.core.chunk;

import io.prefixlog.core.request.EngineTokens;
import io.prefixlog.core.request.ValidatedRequest;
import io.prefixlog.schemas.lookup.ChunkLookupRecord;
import io.prefixlog.schemas.request.PromptChunks;
import io.prefixlog.schemas.request.RawRequestEvent;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * Builds the chunk-hash lookup record of one request: render its body ({@link PromptRenderer}),
 * hash the full chunks of the rendering ({@link ChunkHasher}), and copy the request's identity and
 * the engine's token counts.
 *
 * <p>The LMCache fields keep LMCache's meaning, in prefixlog's unit: {@code timestamp} is the
 * event's {@code ts} in Unix seconds, {@code model_name} the event's {@code model}, {@code
 * chunk_size} and {@code seq_len} count bytes of the rendered prompt ({@code chunk_unit} {@value
 * #CHUNK_UNIT}), {@code seq_len} includes the tail that does not fill a chunk.
 *
 * <p>Immutable and thread-safe.
 */
public final class ChunkLookups {
  /** The {@code chunk_unit} of every record built here. */
  public static final String CHUNK_UNIT = "bytes";

  private final ChunkHasher hasher;

  /**
   * @param chunkSizeBytes bytes of the rendered prompt per chunk, at least 1
   */
  public ChunkLookups(int chunkSizeBytes) {
    this.hasher = new ChunkHasher(chunkSizeBytes);
  }

  public int chunkSize() {
    return hasher.chunkSize();
  }

  /** The version 1 record of a validated request; a body that is not UTF-8 is chunked as it is. */
  public ChunkLookupRecord of(ValidatedRequest request) {
    Objects.requireNonNull(request, "request");
    return of(request.event(), prompt(request.body(), request.utf8()));
  }

  /**
   * A request's version 2 lookup record, and what the next request of its chain needs of it.
   *
   * @param record the record to write
   * @param prints the request's chunk hashes and fingerprints
   * @param sharedChunks leading chunks the request has in common with the previous turn, hashed
   *     only there (also counted when the record lists them again, being whole)
   * @param resume where the next turn's rendering can take up this one's, or null
   */
  public record Lookup(
      ChunkLookupRecord record,
      ChunkPrints prints,
      int sharedChunks,
      PromptRenderer.Resume resume) {}

  /**
   * The version 2 record of a validated request. The chunks it shares with the previous turn of its
   * chain are found by their fingerprints and not hashed again; unless {@code whole}, the record
   * refers to that turn for them ({@code prefix_chunks}) and lists only the hashes after them.
   *
   * @param previous the previous turn's prints, or null when the writer does not have them
   * @param whole list every hash, as the first record of a chain or a periodic resynchronisation
   *     point does
   */
  public Lookup of(ValidatedRequest request, ChunkPrints previous, boolean whole) {
    return of(request, previous, null, whole);
  }

  /**
   * {@link #of(ValidatedRequest, ChunkPrints, boolean)}, rendering the body from where it stops
   * sharing the bytes of the body that left {@code resume} ({@link PromptRenderer#render(byte[],
   * PromptRenderer.Resume)}): the same record, at the cost of what the request adds.
   *
   * @param resume what the previous turn's rendering left, or null
   */
  public Lookup of(
      ValidatedRequest request, ChunkPrints previous, PromptRenderer.Resume resume, boolean whole) {
    Objects.requireNonNull(request, "request");
    PromptRenderer.Resumable rendering =
        request.utf8()
            ? PromptRenderer.render(request.body(), resume)
            : new PromptRenderer.Resumable(PromptRenderer.raw(request.body()), null, 0);
    RenderedPrompt prompt = rendering.prompt();
    int chunkSize = hasher.chunkSize();
    long[] fingerprints = ChunkPrints.fingerprints(prompt.bytes(), chunkSize);
    int shared = 0;
    long[] known = new long[0];
    if (previous != null && previous.chunkSize() == chunkSize) {
      shared = previous.sharedChunks(fingerprints);
      known = previous.hashes();
    }
    long[] hashes = hasher.hashFrom(prompt.bytes(), known, shared);
    int prefix = whole ? 0 : shared;
    List<String> tail = ChunkHasher.hex(Arrays.copyOfRange(hashes, prefix, hashes.length));
    RawRequestEvent event = request.event();
    ChunkLookupRecord v1 = record(event, described(prompt, chunkSize, List.of()));
    ChunkLookupRecord record = v1.asVersion2(prefix, tail);
    return new Lookup(
        record, new ChunkPrints(chunkSize, hashes, fingerprints), shared, rendering.resume());
  }

  /**
   * The chunk hashes a metadata-only raw event carries: exactly what {@link #of(ValidatedRequest)}
   * would hash for the same body (the same rendering and hasher), computed where the body is seen.
   *
   * @param utf8 whether the body bytes are well-formed UTF-8 (as the validator would find)
   */
  public PromptChunks chunks(byte[] body, boolean utf8) {
    return hashed(prompt(Objects.requireNonNull(body, "body"), utf8));
  }

  /** The chunks of a rendered prompt, hashed here. */
  private PromptChunks hashed(RenderedPrompt prompt) {
    return described(prompt, hasher.chunkSize(), ChunkHasher.hex(hasher.hash(prompt.bytes())));
  }

  /** What a lookup says of a rendered prompt's chunks besides the record's own fields. */
  private static PromptChunks described(RenderedPrompt prompt, int chunkSize, List<String> hashes) {
    return new PromptChunks(
        chunkSize,
        (long) prompt.length(),
        hashes,
        ChunkHasher.ALGORITHM,
        CHUNK_UNIT,
        prompt.kind().wireName());
  }

  /**
   * The hash-only record of a metadata-only event, from the hashes its producer computed ({@code
   * prompt_chunks}); marked with the event's {@code body_omitted}.
   */
  public static ChunkLookupRecord ofChunks(RawRequestEvent event) {
    Objects.requireNonNull(event, "event");
    return record(event, Objects.requireNonNull(event.promptChunks(), "event.promptChunks"));
  }

  /** A version 1 record in version 2's form, whole: {@code prefix_chunks} 0, every hash listed. */
  public static ChunkLookupRecord asWhole(ChunkLookupRecord v1) {
    Objects.requireNonNull(v1, "v1");
    return v1.asVersion2(0, v1.chunkHashes());
  }

  private static RenderedPrompt prompt(byte[] body, boolean utf8) {
    return utf8 ? PromptRenderer.render(body) : PromptRenderer.raw(body);
  }

  /**
   * The record of a raw event whose body bytes were decoded by the caller.
   *
   * @param event needs {@code request_id}, {@code ts} and {@code session_key}
   * @param body the event's body bytes (decoded from {@code body_encoding})
   */
  public ChunkLookupRecord of(RawRequestEvent event, byte[] body) {
    return of(event, PromptRenderer.render(Objects.requireNonNull(body, "body")));
  }

  /** The record of a raw event whose body is already rendered. */
  public ChunkLookupRecord of(RawRequestEvent event, RenderedPrompt prompt) {
    Objects.requireNonNull(event, "event");
    Objects.requireNonNull(prompt, "prompt");
    return record(event, hashed(prompt));
  }

  private static ChunkLookupRecord record(RawRequestEvent event, PromptChunks chunks) {
    Objects.requireNonNull(event.requestId(), "event.requestId");
    Objects.requireNonNull(event.ts(), "event.ts");
    Objects.requireNonNull(event.sessionKey(), "event.sessionKey");
    EngineTokens tokens = EngineTokens.of(event);
    return new ChunkLookupRecord(
        event.ts() / 1000.0,
        event.requestId(),
        event.model(),
        chunks.chunkSize(),
        chunks.seqLen(),
        chunks.chunkHashes(),
        event.sessionKey(),
        chunks.hashAlgo(),
        chunks.chunkUnit(),
        chunks.chunked(),
        tokens.promptTokens(),
        tokens.cachedTokens(),
        event.bodyOmitted(),
        event.upstream(),
        null,
        null,
        null);
  }
}
