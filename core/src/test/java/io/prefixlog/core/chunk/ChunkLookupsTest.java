package io.prefixlog.core.chunk;

import static org.assertj.core.api.Assertions.assertThat;

import io.prefixlog.core.request.ValidatedRequest;
import io.prefixlog.core.text.Sha256;
import io.prefixlog.core.text.Utf8;
import io.prefixlog.schemas.json.JsonSerde;
import io.prefixlog.schemas.lookup.ChunkLookupRecord;
import io.prefixlog.schemas.request.BodyEncoding;
import io.prefixlog.schemas.request.RawRequestEvent;
import io.prefixlog.schemas.request.ResponseInfo;
import io.prefixlog.schemas.request.Usage;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ChunkLookupsTest {
  private static final String SESSION = "3f9a0c5e71b2d48a6c0e9f1b2a7d3c58";
  private static final String SMALL_CHAT =
      "{\"model\":\"llama\",\"messages\":["
          + "{\"role\":\"system\",\"content\":\"You are a terse assistant.\"},"
          + "{\"role\":\"user\",\"content\":\"Name three primes, ünïcödé 😀.\"}],\"stream\":true}";
  private static final JsonSerde<ChunkLookupRecord> SERDE = JsonSerde.of(ChunkLookupRecord.class);

  @Test
  void shouldBuildTheLmcacheCompatibleRecordOfAKnownRequest() {
    // Given: the rendering is 98 bytes, "<|system|>\nYou are a terse assistant.<|end|>\n<|user|>\n
    // Name three primes, ünïcödé 😀.<|end|>\n"; the hashes come from Python's hashlib
    RawRequestEvent event =
        event("req-1", 1_749_633_401_877L, "llama", utf8(SMALL_CHAT), new Usage(30L, 12L, 16L));

    // When
    ChunkLookupRecord record = new ChunkLookups(32).of(validated(event, utf8(SMALL_CHAT)));

    // Then
    assertThat(new String(SERDE.toBytes(record), StandardCharsets.UTF_8))
        .isEqualTo(
            "{\"timestamp\":1.749633401877E9,\"request_id\":\"req-1\",\"model_name\":\"llama\","
                + "\"chunk_size\":32,\"seq_len\":98,\"chunk_hashes\":[\"0x079d3328184567e4\","
                + "\"0xd3801d01a63579f5\",\"0x9ebf251fbd61f216\"],"
                + "\"session_key\":\"3f9a0c5e71b2d48a6c0e9f1b2a7d3c58\","
                + "\"hash_algo\":\"sha256_chain_64\",\"chunk_unit\":\"bytes\","
                + "\"chunked\":\"chat_messages\",\"prompt_tokens\":30,\"cached_tokens\":16}");
  }

  @Test
  void shouldTakeAnAbsentCachedCountAsZeroWhenThePromptCountIsKnown() {
    // Given: vLLM leaves cached_tokens out when it is zero
    RawRequestEvent event =
        event("req-2", 1000L, "llama", utf8(SMALL_CHAT), new Usage(30L, 12L, null));

    // When
    ChunkLookupRecord record = new ChunkLookups(32).of(event, utf8(SMALL_CHAT));

    // Then
    assertThat(record.promptTokens()).isEqualTo(30L);
    assertThat(record.cachedTokens()).isEqualTo(0L);
  }

  @Test
  void shouldCarryTheUpstreamTheProxyForwardedTheRequestTo() {
    // Given
    RawRequestEvent plain = event("req-3", 1000L, "llama", utf8(SMALL_CHAT), null);
    RawRequestEvent proxied =
        new RawRequestEvent(
            plain.schemaVersion(),
            plain.requestId(),
            plain.ts(),
            plain.sessionKey(),
            plain.sessionKeySource(),
            plain.clientAddr(),
            plain.userAgent(),
            plain.headers(),
            plain.method(),
            plain.path(),
            plain.model(),
            plain.body(),
            plain.bodyEncoding(),
            plain.bodyLen(),
            plain.bodySha256(),
            plain.truncated(),
            plain.originalBodyLen(),
            plain.response(),
            null,
            null,
            "http://10.0.3.17:8000",
            null,
            null);

    // When
    ChunkLookupRecord withUpstream = new ChunkLookups(32).of(proxied, utf8(SMALL_CHAT));
    ChunkLookupRecord without = new ChunkLookups(32).of(plain, utf8(SMALL_CHAT));

    // Then
    assertThat(withUpstream.upstream()).isEqualTo("http://10.0.3.17:8000");
    assertThat(new String(SERDE.toBytes(withUpstream), StandardCharsets.UTF_8))
        .endsWith(",\"upstream\":\"http://10.0.3.17:8000\"}");
    assertThat(without.upstream()).isNull();
    assertThat(new String(SERDE.toBytes(without), StandardCharsets.UTF_8))
        .doesNotContain("upstream");
  }

  @Test
  void shouldLeaveTokenCountsAndModelAbsentWhenUnknown() {
    // Given: a middleware that saw no response and a request without a model
    RawRequestEvent event = event("req-3", 1500L, null, utf8(SMALL_CHAT), null);

    // When
    ChunkLookupRecord record = new ChunkLookups(32).of(event, utf8(SMALL_CHAT));

    // Then
    assertThat(record.timestamp()).isEqualTo(1.5);
    assertThat(record.modelName()).isNull();
    assertThat(record.promptTokens()).isNull();
    assertThat(record.cachedTokens()).isNull();
    assertThat(new String(SERDE.toBytes(record), StandardCharsets.UTF_8))
        .doesNotContain("model_name", "prompt_tokens", "cached_tokens", "null");
  }

  @Test
  void shouldChunkABodyThatIsNotUtf8AsItIs() {
    // Given
    byte[] body = new byte[100];
    body[0] = (byte) 0xFF;
    RawRequestEvent event = event("req-4", 1000L, "llama", body, null);

    // When
    ChunkLookupRecord record = new ChunkLookups(32).of(validated(event, body));

    // Then
    assertThat(record.chunked()).isEqualTo("raw_body");
    assertThat(record.seqLen()).isEqualTo(100L);
    assertThat(record.chunkHashes()).isEqualTo(ChunkHasher.hex(new ChunkHasher(32).hash(body)));
  }

  @Test
  void shouldMeasureTheRenderedPromptAndHashItsFullChunks() {
    // Given: a long real agentic request
    List<byte[]> bodies =
        CorpusBodies.bodies(
            "agentic/swe_agent_trajectories.jsonl",
            CorpusBodies.conversations("agentic/swe_agent_trajectories.jsonl", 1, null).get(0).id(),
            turn -> null);
    byte[] body = bodies.get(bodies.size() - 1);
    RenderedPrompt rendered = PromptRenderer.render(body);

    // When
    ChunkLookupRecord record =
        new ChunkLookups(256).of(event("req-5", 1000L, "m", body, null), body);

    // Then
    assertThat(record.seqLen()).isEqualTo(rendered.length());
    assertThat(record.seqLen()).isLessThan(body.length);
    assertThat(record.chunkHashes()).hasSize(rendered.length() / 256);
    assertThat(record.chunkHashes())
        .isEqualTo(ChunkHasher.hex(new ChunkHasher(256).hash(rendered.bytes())));
  }

  @Test
  void shouldChainHashesAcrossTheTurnsOfARealSession() {
    // Given: every airline run of the first ten, with tool definitions
    ChunkLookups lookups = new ChunkLookups(256);
    int pairs = 0;
    for (CorpusBodies.Conversation conversation :
        CorpusBodies.conversations(
            "agentic/tau_bench_gpt4o_airline.jsonl", 10, CorpusBodies.AIRLINE_TOOLS)) {
      List<String> previous = null;
      for (byte[] body : conversation.bodies()) {
        // When
        List<String> hashes = lookups.of(event("r", 1000L, "m", body, null), body).chunkHashes();

        // Then: turn n+1 appends messages, so its hashes start with all of turn n's
        if (previous != null) {
          assertThat(hashes.size()).isGreaterThanOrEqualTo(previous.size());
          assertThat(hashes.subList(0, previous.size())).as(conversation.id()).isEqualTo(previous);
          pairs++;
        }
        previous = hashes;
      }
    }
    assertThat(pairs).isGreaterThan(100);
  }

  @Test
  void shouldShareTheHashesOfACommonSystemPromptAcrossSessions() {
    // Given: turn 3 of two airline runs that open with the same 6 KB policy, then differ
    List<CorpusBodies.Conversation> runs =
        CorpusBodies.conversations("agentic/tau_bench_gpt4o_airline.jsonl", 2, null);
    byte[] a = runs.get(0).bodies().get(2);
    byte[] b = runs.get(1).bodies().get(2);
    byte[] ra = PromptRenderer.render(a).bytes();
    byte[] rb = PromptRenderer.render(b).bytes();
    int sharedChunks = java.util.Arrays.mismatch(ra, rb) / 256;
    ChunkLookups lookups = new ChunkLookups(256);

    // When
    List<String> ha = lookups.of(event("a", 1000L, "m", a, null), a).chunkHashes();
    List<String> hb = lookups.of(event("b", 1000L, "m", b, null), b).chunkHashes();

    // Then
    assertThat(sharedChunks).isGreaterThan(20);
    assertThat(ha.subList(0, sharedChunks)).isEqualTo(hb.subList(0, sharedChunks));
    assertThat(ha.get(sharedChunks)).isNotEqualTo(hb.get(sharedChunks));
  }

  @Test
  void shouldReferToThePreviousTurnForTheChunksItSharesAndResolveToTheWholeList() {
    // Given: a second turn that appends an answer and a question to the first
    byte[] first = chat(List.of("What is a prime? ".repeat(40)));
    byte[] second = chat(List.of("What is a prime? ".repeat(40), "One. ".repeat(30), "And 2?"));
    ChunkLookups lookups = new ChunkLookups(32);
    ChunkLookups.Lookup one =
        lookups.of(validated(event("r1", 1000L, "llama", first, null), first), null, false);

    // When
    ChunkLookups.Lookup two =
        lookups.of(
            validated(event("r2", 2000L, "llama", second, null), second), one.prints(), false);

    // Then: it lists only the hashes after the shared ones, which resolve to the version 1 list
    ChunkLookupRecord v1 = lookups.of(validated(event("r2", 2000L, "llama", second, null), second));
    ChunkLookupRecord record = two.record();
    assertThat(one.record().prefixChunks()).isZero();
    assertThat(record.schemaVersion()).isEqualTo(2);
    assertThat(record.chunkHashes()).isNull();
    assertThat(record.prefixChunks()).isEqualTo(two.sharedChunks()).isGreaterThan(15);
    assertThat(record.tailHashes()).hasSize(v1.chunkHashes().size() - record.prefixChunks());
    List<String> firstList = one.record().resolve(null);
    assertThat(record.resolve(firstList)).isEqualTo(v1.chunkHashes());
    assertThat(record.asVersion1(record.resolve(firstList))).isEqualTo(v1);
  }

  @Test
  void shouldShareOnlyTheChunksBeforeAnEditAndListEveryHashWhenAskedForAWholeRecord() {
    // Given: the second turn edits the first message near its end
    String question = "Tell me about primes and composites. ".repeat(30);
    byte[] first = chat(List.of(question, "Primes have two divisors."));
    byte[] edited =
        chat(List.of(question.substring(0, 900) + "EDIT" + question.substring(904), "Primes."));
    ChunkLookups lookups = new ChunkLookups(32);
    ChunkLookups.Lookup one =
        lookups.of(validated(event("r1", 1000L, "llama", first, null), first), null, false);
    ValidatedRequest request = validated(event("r2", 2000L, "llama", edited, null), edited);

    // When
    ChunkLookups.Lookup shared = lookups.of(request, one.prints(), false);
    ChunkLookups.Lookup whole = lookups.of(request, one.prints(), true);

    // Then: the chunks up to the edit are shared; the whole record lists them all, the same ones
    ChunkLookupRecord v1 = lookups.of(request);
    assertThat(shared.record().prefixChunks()).isEqualTo(shared.sharedChunks());
    assertThat(shared.sharedChunks()).isBetween(20, 900 / 32 + 1);
    assertThat(shared.record().resolve(one.record().resolve(null))).isEqualTo(v1.chunkHashes());
    assertThat(whole.record().prefixChunks()).isZero();
    assertThat(whole.record().tailHashes()).isEqualTo(v1.chunkHashes());
    assertThat(whole.sharedChunks()).isEqualTo(shared.sharedChunks());
  }

  private static byte[] chat(List<String> contents) {
    StringBuilder body = new StringBuilder("{\"model\":\"llama\",\"messages\":[");
    for (int i = 0; i < contents.size(); i++) {
      body.append(i == 0 ? "" : ",")
          .append("{\"role\":\"")
          .append(i % 2 == 0 ? "user" : "assistant")
          .append("\",\"content\":\"")
          .append(contents.get(i))
          .append("\"}");
    }
    return utf8(body.append("]}").toString());
  }

  static RawRequestEvent event(String requestId, long ts, String model, byte[] body, Usage usage) {
    BodyEncoding.EncodedBody encoded = BodyEncoding.encode(body);
    return new RawRequestEvent(
        1,
        requestId,
        ts,
        SESSION,
        "header:x-session-id",
        "127.0.0.1",
        "test-agent/1.0",
        Map.of(),
        "POST",
        "/v1/chat/completions",
        model,
        encoded.text(),
        encoded.encoding().wireName(),
        (long) body.length,
        Sha256.hex(body),
        false,
        null,
        usage == null ? null : new ResponseInfo(200, 51.5, 12.25, usage, "chatcmpl-x", null),
        null,
        null,
        null,
        null,
        null);
  }

  private static ValidatedRequest validated(RawRequestEvent event, byte[] body) {
    return new ValidatedRequest(event, body, Utf8.isStrict(body));
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
