package io.prefixlog.streams.lookup;

import static org.assertj.core.api.Assertions.assertThat;

import io.prefixlog.schemas.lookup.ChunkLookupRecord;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import org.apache.kafka.clients.producer.internals.BuiltInPartitioner;
import org.junit.jupiter.api.Test;

class SessionOfValuePartitionerTest {
  private final SessionOfValuePartitioner partitioner = new SessionOfValuePartitioner();

  @Test
  void shouldPutALookupInThePartitionItsSessionsRawEventsUse() {
    // Given: random session keys; the producer partitions raw events keyed by session_key with
    // its built-in partitioner
    Random random = new Random(5);
    for (int i = 0; i < 2_000; i++) {
      byte[] key = new byte[16];
      random.nextBytes(key);
      String session = HexFormat.of().formatHex(key);
      for (int partitions : new int[] {1, 3, 6, 12, 100}) {
        int rawPartition =
            BuiltInPartitioner.partitionForKey(
                session.getBytes(StandardCharsets.UTF_8), partitions);

        // When
        Optional<Set<Integer>> chosen =
            partitioner.partitions(
                "prefixlog.chunk.lookups", "req-" + i, record("req-" + i, session), partitions);

        // Then
        assertThat(chosen).contains(Set.of(rawPartition));
      }
    }
  }

  @Test
  void shouldPutEveryRequestOfASessionInOnePartitionWhateverItsRequestId() {
    // Given
    String session = "3f9a0c5e71b2d48a6c0e9f1b2a7d3c58";

    // When
    List<Optional<Set<Integer>>> chosen =
        List.of("a", "req-2", "0f6c2b9e-1d4a-4e8b-a3c7-5b2e9d1f8a60").stream()
            .map(id -> partitioner.partitions("t", id, record(id, session), 6))
            .toList();

    // Then
    assertThat(chosen)
        .containsOnly(Optional.of(Set.of(SessionOfValuePartitioner.partitionOf(session, 6))));
  }

  @Test
  void shouldPutATombstoneInThePartitionOfTheSessionItsTurnKeyNames() {
    // Given: an erasure's tombstone for a turn (no value, so no session_key to read)
    String session = "3f9a0c5e71b2d48a6c0e9f1b2a7d3c58";
    String turnKey = session + "/0a1b2c3d/7";

    // When
    Optional<Set<Integer>> chosen = partitioner.partitions("t", turnKey, null, 12);

    // Then: where the lookup it deletes was written, or compaction would never remove it
    assertThat(chosen)
        .contains(Set.of(SessionOfValuePartitioner.partitionOf(session, 12)))
        .isEqualTo(partitioner.partitions("t", turnKey, record("r", session), 12));
  }

  @Test
  void shouldLeaveARecordWithoutASessionToTheDefaultPartitioner() {
    assertThat(partitioner.partitions("t", null, null, 6)).isEmpty();
    assertThat(partitioner.partitions("t", "k", record("k", null), 6)).isEmpty();
  }

  private static ChunkLookupRecord record(String requestId, String session) {
    return new ChunkLookupRecord(
        1.0,
        requestId,
        "m",
        256,
        0L,
        List.of(),
        session,
        "sha256_chain_64",
        "bytes",
        "raw_body",
        null,
        null,
        null,
        null,
        null,
        null,
        null);
  }
}
