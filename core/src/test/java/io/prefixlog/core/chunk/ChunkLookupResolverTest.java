package io.prefixlog.core.chunk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.prefixlog.core.chunk.LookupChains.Outcome;
import io.prefixlog.core.chunk.LookupChains.Resolved;
import io.prefixlog.core.chunk.LookupChains.Skipped;
import io.prefixlog.core.chunk.LookupChains.Unresolved;
import io.prefixlog.core.request.ValidatedRequest;
import io.prefixlog.core.text.Utf8;
import io.prefixlog.schemas.json.JsonSerde;
import io.prefixlog.schemas.lookup.ChunkLookupRecord;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ChunkLookupResolverTest {
  private static final JsonSerde<ChunkLookupRecord> SERDE = JsonSerde.of(ChunkLookupRecord.class);
  private static final String SESSION = "3f9a0c5e71b2d48a6c0e9f1b2a7d3c58";

  /** One turn's record under its key, in both versions. */
  private record Turn(String key, ChunkLookupRecord v1, ChunkLookupRecord v2) {}

  /**
   * The turns of real agent runs, interleaved as one partition holds them: version 1 records as
   * {@link ChunkLookups#of(ValidatedRequest)} writes them, and version 2 as the stream app does,
   * whole at the first turn of a chain and every {@code wholeEvery} turns.
   */
  private static List<Turn> turns(int runs, int wholeEvery) {
    ChunkLookups lookups = new ChunkLookups(256);
    List<CorpusBodies.Conversation> conversations =
        CorpusBodies.conversations(
            "agentic/tau_bench_gpt4o_airline.jsonl", runs, CorpusBodies.AIRLINE_TOOLS);
    List<Turn> turns = new ArrayList<>();
    ChunkPrints[] prints = new ChunkPrints[conversations.size()];
    for (int seq = 1; ; seq++) {
      boolean any = false;
      for (int c = 0; c < conversations.size(); c++) {
        List<byte[]> bodies = conversations.get(c).bodies();
        if (seq > bodies.size()) {
          continue;
        }
        any = true;
        byte[] body = bodies.get(seq - 1);
        ValidatedRequest request =
            new ValidatedRequest(
                ChunkLookupsTest.event("r-" + c + "-" + seq, 1000L * seq + c, "m", body, null),
                body,
                Utf8.isStrict(body));
        ChunkLookups.Lookup v2 = lookups.of(request, prints[c], (seq - 1) % wholeEvery == 0);
        prints[c] = v2.prints();
        turns.add(new Turn(SESSION + "/c" + c + "/" + seq, lookups.of(request), v2.record()));
      }
      if (!any) {
        return turns;
      }
    }
  }

  private static String json(ChunkLookupRecord record) {
    return new String(SERDE.toBytes(record), StandardCharsets.UTF_8);
  }

  @Test
  void shouldGiveEveryVersion2RecordOfRealSessionsItsVersion1FormByteForByte() {
    // Given
    List<Turn> turns = turns(6, 4);
    ChunkLookupResolver resolver = new ChunkLookupResolver(1 << 20);

    // When
    List<String> resolved = new ArrayList<>();
    for (Turn turn : turns) {
      Outcome<List<String>> outcome = resolver.resolve(turn.key(), turn.v2());
      resolved.add(
          outcome instanceof Resolved<List<String>> r
              ? json(turn.v2().asVersion1(r.hashes()))
              : outcome.toString());
    }

    // Then: most records referred to their previous turn, and none was left unresolved
    assertThat(resolved).isEqualTo(turns.stream().map(t -> json(t.v1())).toList());
    assertThat(resolver.stats().joined()).isGreaterThan(turns.size() / 2);
    assertThat(resolver.stats().unresolvedTotal()).isZero();
  }

  @Test
  void shouldResolveAChainWrittenByAVersion1InstanceThenByAVersion2One() {
    // Given: a rolling upgrade in the middle of every chain: turns 1-3 version 1, then version 2
    List<Turn> turns = turns(3, 64);
    ChunkLookupResolver resolver = new ChunkLookupResolver(1 << 20);

    // When
    List<List<String>> lists = new ArrayList<>();
    for (Turn turn : turns) {
      boolean upgraded =
          Integer.parseInt(turn.key().substring(turn.key().lastIndexOf('/') + 1)) > 3;
      Outcome<List<String>> outcome =
          resolver.resolve(turn.key(), upgraded ? turn.v2() : turn.v1());
      lists.add(outcome instanceof Resolved<List<String>> r ? r.hashes() : null);
    }

    // Then
    assertThat(lists).isEqualTo(turns.stream().map(t -> t.v1().chunkHashes()).toList());
    assertThat(resolver.stats().joined()).isEqualTo(turns.size() - 3 * 3);
  }

  @Test
  void shouldSkipAChainThatBeginsMidwayUntilItsNextWholeRecord() {
    // Given: one run's turns from turn 3 on; a whole record every 4 turns (1, 5, 9, …)
    List<Turn> turns = turns(1, 4);
    ChunkLookupResolver resolver = new ChunkLookupResolver(1 << 20);

    // When
    List<Object> outcomes = new ArrayList<>();
    for (Turn turn : turns.subList(2, 6)) {
      Outcome<List<String>> outcome = resolver.resolve(turn.key(), turn.v2());
      outcomes.add(outcome instanceof Resolved<List<String>> r ? r.hashes() : outcome);
    }

    // Then: turns 3 and 4 unresolved, turn 5 whole, turn 6 resolved from it
    assertThat(outcomes)
        .containsExactly(
            new Skipped<List<String>>(Unresolved.PREVIOUS_NOT_READ),
            new Skipped<List<String>>(Unresolved.PREVIOUS_UNRESOLVED),
            turns.get(4).v1().chunkHashes(),
            turns.get(5).v1().chunkHashes());
    assertThat(resolver.stats().unresolvedTotal()).isEqualTo(2);
  }

  @Test
  void shouldRefuseARecordThatListsNoHashes() {
    // Given: a version 2 record without tail_hashes
    ChunkLookupRecord record =
        new ChunkLookupRecord(
            1.0,
            "r",
            "m",
            256,
            512L,
            null,
            SESSION,
            "sha256_chain_64",
            "bytes",
            "chat_messages",
            null,
            null,
            null,
            null,
            ChunkLookupRecord.SCHEMA_VERSION_V2,
            0,
            List.of());
    ChunkLookupRecord noTail =
        new ChunkLookupRecord(
            record.timestamp(),
            record.requestId(),
            record.modelName(),
            record.chunkSize(),
            record.seqLen(),
            null,
            record.sessionKey(),
            record.hashAlgo(),
            record.chunkUnit(),
            record.chunked(),
            null,
            null,
            null,
            null,
            2,
            0,
            null);
    ChunkLookupResolver resolver = new ChunkLookupResolver(1 << 20);

    // When / Then
    assertThatThrownBy(() -> resolver.resolve(SESSION + "/c/1", noTail))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("the record has no tail_hashes");
  }
}
