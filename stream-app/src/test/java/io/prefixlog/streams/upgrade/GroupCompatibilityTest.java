package io.prefixlog.streams.upgrade;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class GroupCompatibilityTest {
  private static final List<String> NAMES =
      List.of("processor:session-delta", "store:session-state", "topic:prefixlog.requests.raw");

  @Test
  void shouldLetAnInstanceJoinMembersOfTheSameTopologyAndFormats() {
    // Given
    Registration self = registration("c", "aaaa", NAMES, 1, 1);

    // When
    GroupCompatibility.Verdict verdict =
        GroupCompatibility.judge(
            self,
            Set.of("a", "b"),
            Map.of(
                "a",
                registration("a", "aaaa", NAMES, 1, 1),
                "b",
                registration("b", "aaaa", NAMES, 2, 1)));

    // Then
    assertThat(verdict).isEqualTo(new GroupCompatibility.Verdict(List.of(), List.of(), false));
  }

  @Test
  void shouldRefuseAnotherTopologyNamingBothFingerprintsAndWhatDiffers() {
    // Given: the joining instance has a node more and a store less
    List<String> changed =
        List.of("processor:extra-node", "processor:session-delta", "topic:prefixlog.requests.raw");
    Registration self = registration("b", "bbbb", changed, 1, 1);

    // When
    GroupCompatibility.Verdict verdict =
        GroupCompatibility.judge(
            self, Set.of("a"), Map.of("a", registration("a", "aaaa", NAMES, 1, 1)));

    // Then
    assertThat(verdict.allowed()).isFalse();
    assertThat(verdict.topologyDiffers()).isTrue();
    assertThat(verdict.refusals())
        .containsExactly(
            "member 'a' runs topology aaaa and this instance has topology bbbb (only in this one:"
                + " processor:extra-node; only in the member's: store:session-state)");
  }

  @Test
  void shouldSayWhenTheSameNamesAreConnectedDifferently() {
    // When
    GroupCompatibility.Verdict verdict =
        GroupCompatibility.judge(
            registration("b", "bbbb", NAMES, 1, 1),
            Set.of("a"),
            Map.of("a", registration("a", "aaaa", NAMES, 1, 1)));

    // Then
    assertThat(verdict.refusals())
        .containsExactly(
            "member 'a' runs topology aaaa and this instance has topology bbbb (the same names,"
                + " connected differently)");
  }

  @Test
  void shouldNameMembersWithoutARegistrationAndLetAnInstanceWritingTheirFormatsJoin() {
    // Given: a member of a build from before registrations, and one that stopped (tombstoned)
    Registration self = registration("c", "cccc", NAMES, 2, 1);

    // When
    GroupCompatibility.Verdict verdict =
        GroupCompatibility.judge(self, Set.of("old", "stopped"), Map.of());

    // Then
    assertThat(verdict)
        .isEqualTo(new GroupCompatibility.Verdict(List.of(), List.of("old", "stopped"), false));
  }

  @Test
  void shouldRefuseToWriteFormatsThatAMemberCannotRead() {
    // Given: this build writes generation 2; one member reads up to 1, another has no
    // registration (reads generation 1 only)
    Registration self = registration("c", "aaaa", NAMES, 2, 2);

    // When
    GroupCompatibility.Verdict verdict =
        GroupCompatibility.judge(
            self, Set.of("a", "old"), Map.of("a", registration("a", "aaaa", NAMES, 1, 1)));

    // Then
    assertThat(verdict.topologyDiffers()).isFalse();
    assertThat(verdict.unregistered()).containsExactly("old");
    assertThat(verdict.refusals())
        .containsExactly(
            "member 'a' reads format generations up to 1 and this instance would write"
                + " generation 2: start it with PREFIXLOG_UPGRADE_FROM=1 until every member runs"
                + " this build",
            "member 'old' has no registration, so it runs a build from before registrations,"
                + " which reads format generation 1 only, and this instance would write"
                + " generation 2: start it with PREFIXLOG_UPGRADE_FROM=1 until every member runs"
                + " this build");
  }

  @Test
  void shouldRefuseToRollBackOntoMembersThatWriteNewerFormats() {
    // Given: a build of generation 1 joins members that already write generation 2
    Registration self = registration("c", "aaaa", NAMES, 1, 1);

    // When
    GroupCompatibility.Verdict verdict =
        GroupCompatibility.judge(
            self, Set.of("a"), Map.of("a", registration("a", "aaaa", NAMES, 2, 2)));

    // Then
    assertThat(verdict.refusals())
        .containsExactly(
            "member 'a' writes format generation 2, which this build cannot read (it reads up to"
                + " 1): the group already writes formats newer than this build, so it cannot be"
                + " rolled back to it (see the README's upgrade section)");
  }

  @Test
  void shouldIgnoreTheMemberItsOwnEarlierRunLeftBehind() {
    // Given: the instance restarts with another topology under the same client id
    Registration self = registration("a", "bbbb", NAMES, 1, 1);

    // When
    GroupCompatibility.Verdict verdict =
        GroupCompatibility.judge(
            self, Set.of("a"), Map.of("a", registration("a", "aaaa", NAMES, 1, 1)));

    // Then
    assertThat(verdict.allowed()).isTrue();
  }

  @Test
  void shouldNameTheInstanceOfAStreamThreadsMember() {
    assertThat(GroupGuard.instanceOf("ru1-app-a-StreamThread-12-consumer")).isEqualTo("ru1-app-a");
    assertThat(GroupGuard.instanceOf("some-consumer")).isEqualTo("some-consumer");
  }

  private static Registration registration(
      String instance, String fingerprint, List<String> names, int reads, int writes) {
    return new Registration(instance, fingerprint, names, reads, writes, 1_750_000_000_000L);
  }
}
