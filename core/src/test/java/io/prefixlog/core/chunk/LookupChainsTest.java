package io.prefixlog.core.chunk;

import static org.assertj.core.api.Assertions.assertThat;

import io.prefixlog.core.chunk.LookupChains.Outcome;
import io.prefixlog.core.chunk.LookupChains.Resolved;
import io.prefixlog.core.chunk.LookupChains.Skipped;
import io.prefixlog.core.chunk.LookupChains.Unresolved;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LookupChainsTest {
  private static final String SESSION = "3f9a0c5e71b2d48a";
  private static final long PLENTY = 1 << 20;

  private static String key(String chain, long seq) {
    return SESSION + "/" + chain + "/" + seq;
  }

  private static List<String> hashes(String... hex) {
    return List.of(hex);
  }

  private static Object whole(Outcome<List<String>> outcome) {
    return outcome instanceof Resolved<List<String>> r ? r.hashes() : outcome;
  }

  private static Map<Unresolved, Long> counts(long notRead, long unresolved, long letGo) {
    return Map.of(
        Unresolved.PREVIOUS_NOT_READ, notRead,
        Unresolved.PREVIOUS_UNRESOLVED, unresolved,
        Unresolved.PREVIOUS_LET_GO, letGo,
        Unresolved.PREVIOUS_TOO_SHORT, 0L,
        Unresolved.NOT_A_TURN, 0L);
  }

  @Test
  void shouldGiveVersion1RecordsTheirOwnListsAndKeepNothingForRecordsWithoutATurnKey() {
    // Given: version 1 records of a chain, and ones keyed by request id (before delta records v3)
    LookupChains<List<String>> chains = new LookupChains<>(LookupChains.HEX, PLENTY);

    // When
    List<Object> lists = new ArrayList<>();
    lists.add(whole(chains.accept(key("c1", 1), true, 0, hashes("0xa"))));
    lists.add(whole(chains.accept(key("c1", 2), true, 0, hashes("0xa", "0xb"))));
    lists.add(whole(chains.accept("req-7", true, 0, hashes("0xc"))));
    lists.add(whole(chains.accept(null, true, 0, hashes("0xd"))));

    // Then
    assertThat(lists)
        .containsExactly(hashes("0xa"), hashes("0xa", "0xb"), hashes("0xc"), hashes("0xd"));
    assertThat(chains.stats().resolved()).isEqualTo(4);
    assertThat(chains.stats().joined()).isZero();
    assertThat(chains.stats().unresolvedTotal()).isZero();
    assertThat(chains.stats().chains()).isEqualTo(1);
  }

  @Test
  void shouldJoinEachVersion2RecordToItsChainsPreviousTurnAndKeepChainsApart() {
    // Given: two chains of one session, their turns interleaved as a partition holds them
    LookupChains<List<String>> chains = new LookupChains<>(LookupChains.HEX, PLENTY);

    // When
    List<Object> lists = new ArrayList<>();
    lists.add(whole(chains.accept(key("c1", 1), true, 0, hashes("0xa", "0xb"))));
    lists.add(whole(chains.accept(key("c2", 1), true, 0, hashes("0xa", "0xf"))));
    lists.add(whole(chains.accept(key("c1", 2), true, 2, hashes("0xc"))));
    lists.add(whole(chains.accept(key("c2", 2), true, 1, hashes("0xe"))));
    lists.add(whole(chains.accept(key("c1", 3), true, 3, hashes())));
    lists.add(whole(chains.accept(key("c1", 4), true, 1, hashes("0xd", "0xe"))));

    // Then: each from its own chain's previous turn, itself resolved from the one before
    assertThat(lists)
        .containsExactly(
            hashes("0xa", "0xb"),
            hashes("0xa", "0xf"),
            hashes("0xa", "0xb", "0xc"),
            hashes("0xa", "0xe"),
            hashes("0xa", "0xb", "0xc"),
            hashes("0xa", "0xd", "0xe"));
    assertThat(chains.stats().joined()).isEqualTo(4);
    assertThat(chains.stats().unresolved()).isEqualTo(counts(0, 0, 0));
  }

  @Test
  void shouldResolveAVersion2RecordWhosePreviousTurnIsAVersion1Record() {
    // Given: a rolling upgrade, the chain's turn 5 written by a version 1 instance
    LookupChains<List<String>> chains = new LookupChains<>(LookupChains.HEX, PLENTY);
    chains.accept(key("c1", 5), true, 0, hashes("0x1", "0x2", "0x3"));

    // When
    Outcome<List<String>> next = chains.accept(key("c1", 6), true, 3, hashes("0x4"));

    // Then
    assertThat(next).isEqualTo(new Resolved<>(hashes("0x1", "0x2", "0x3", "0x4"), true));
  }

  @Test
  void shouldSkipAChainReadFromItsMiddleUntilItsNextWholeRecordAndCountWhy() {
    // Given: the read begins at turn 40 of a chain (retention deleted the turns before)
    LookupChains<List<String>> chains = new LookupChains<>(LookupChains.HEX, PLENTY);

    // When
    Outcome<List<String>> first = chains.accept(key("c1", 40), true, 2, hashes("0x3"));
    Outcome<List<String>> second = chains.accept(key("c1", 41), true, 3, hashes("0x4"));
    Outcome<List<String>> resync = chains.accept(key("c1", 65), true, 0, hashes("0x1", "0x9"));
    Outcome<List<String>> after = chains.accept(key("c1", 66), true, 2, hashes("0x8"));

    // Then: never read as if the tail were the whole list
    assertThat(first).isEqualTo(new Skipped<List<String>>(Unresolved.PREVIOUS_NOT_READ));
    assertThat(second).isEqualTo(new Skipped<List<String>>(Unresolved.PREVIOUS_UNRESOLVED));
    assertThat(resync).isEqualTo(new Resolved<>(hashes("0x1", "0x9"), false));
    assertThat(after).isEqualTo(new Resolved<>(hashes("0x1", "0x9", "0x8"), true));
    assertThat(chains.stats().unresolved()).isEqualTo(counts(1, 1, 0));
    assertThat(chains.stats().resolved()).isEqualTo(2);
  }

  @Test
  void shouldSkipATurnWhosePreviousTurnIsMissingFromTheRead() {
    // Given: turn 2 of the chain is not in the read (a gap)
    LookupChains<List<String>> chains = new LookupChains<>(LookupChains.HEX, PLENTY);
    chains.accept(key("c1", 1), true, 0, hashes("0x1"));

    // When
    Outcome<List<String>> third = chains.accept(key("c1", 3), true, 1, hashes("0x2"));

    // Then
    assertThat(third).isEqualTo(new Skipped<List<String>>(Unresolved.PREVIOUS_NOT_READ));
  }

  @Test
  void shouldForgetAnErasedChainSoThatItsLaterReferencesAreUnresolved() {
    // Given: a chain, then the erasure's tombstone for each of its turns
    LookupChains<List<String>> chains = new LookupChains<>(LookupChains.HEX, PLENTY);
    chains.accept(key("c1", 1), true, 0, hashes("0x1"));
    chains.accept(key("c1", 2), true, 1, hashes("0x2"));
    chains.accept(key("c2", 1), true, 0, hashes("0x7"));

    // When
    chains.tombstone(key("c1", 1));
    chains.tombstone(key("c1", 2));
    Outcome<List<String>> late = chains.accept(key("c1", 3), true, 2, hashes("0x3"));
    Outcome<List<String>> other = chains.accept(key("c2", 2), true, 1, hashes("0x8"));

    // Then: the other chain is untouched
    assertThat(late).isEqualTo(new Skipped<List<String>>(Unresolved.PREVIOUS_NOT_READ));
    assertThat(other).isEqualTo(new Resolved<>(hashes("0x7", "0x8"), true));
    assertThat(chains.stats().chains()).isEqualTo(2);
  }

  @Test
  void shouldLetTheLeastRecentlyUsedChainGoBeyondTheBoundAndSaySo() {
    // Given: room for one chain's list of 20 hashes (310 bytes with its entry), not two
    LookupChains<long[]> chains = new LookupChains<>(LookupChains.LONGS, 500);
    long[] twenty = new long[20];

    // When
    chains.accept(key("c1", 1), true, 0, twenty);
    chains.accept(key("c2", 1), true, 0, twenty);
    Outcome<long[]> c1 = chains.accept(key("c1", 2), true, 20, new long[] {7});
    Outcome<long[]> c2 = chains.accept(key("c2", 2), true, 20, new long[] {7});

    // Then: c1's list went when c2's came; c2's stayed
    assertThat(c1).isEqualTo(new Skipped<long[]>(Unresolved.PREVIOUS_LET_GO));
    assertThat(c2).isInstanceOf(Resolved.class);
    assertThat(((Resolved<long[]>) c2).hashes()).hasSize(21);
    assertThat(chains.stats().chainsLetGo()).isEqualTo(1);
    assertThat(chains.stats().bytes()).isLessThanOrEqualTo(500);
  }

  @Test
  void shouldNotReadAReferringRecordWithoutATurnKeyOrWithMoreSharedHashesThanThePreviousHas() {
    // Given
    LookupChains<List<String>> chains = new LookupChains<>(LookupChains.HEX, PLENTY);
    chains.accept(key("c1", 1), true, 0, hashes("0x1"));

    // When
    Outcome<List<String>> noKey = chains.accept(null, true, 1, hashes("0x2"));
    Outcome<List<String>> tooLong = chains.accept(key("c1", 2), true, 2, hashes("0x2"));

    // Then
    assertThat(noKey).isEqualTo(new Skipped<List<String>>(Unresolved.NOT_A_TURN));
    assertThat(tooLong).isEqualTo(new Skipped<List<String>>(Unresolved.PREVIOUS_TOO_SHORT));
  }

  @Test
  void shouldNotTakeASampledOutRecordForATurnEvenWhenItsKeyParsesAsOne() {
    // Given: a hash-only lookup keyed session/ts/request_id whose request id is digits
    LookupChains<List<String>> chains = new LookupChains<>(LookupChains.HEX, PLENTY);

    // When
    Outcome<List<String>> sampled =
        chains.accept(SESSION + "/1763700000000/42", false, 0, hashes("0x5"));

    // Then
    assertThat(sampled).isEqualTo(new Resolved<>(hashes("0x5"), false));
    assertThat(chains.stats().chains()).isZero();
  }
}
