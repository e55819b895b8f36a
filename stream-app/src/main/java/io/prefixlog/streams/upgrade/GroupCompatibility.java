package io.prefixlog.streams.upgrade;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Whether an instance may join its group, judged from the registrations of the members that are
 * live in it: the same topology as each, formats each reads, and formats it reads from each. A live
 * member without a registration runs a build from before registrations: its topology cannot be
 * compared (it is named, and the instance joins), and it reads and writes {@link
 * FormatGenerations#UNREGISTERED} only.
 */
final class GroupCompatibility {
  private static final int LISTED_NAMES = 8;

  /**
   * @param refusals why the instance must not join, one sentence per member and reason; empty: it
   *     may
   * @param unregistered the live members without a registration
   * @param topologyDiffers whether a refusal is a member's other topology
   */
  record Verdict(List<String> refusals, List<String> unregistered, boolean topologyDiffers) {
    Verdict {
      refusals = List.copyOf(refusals);
      unregistered = List.copyOf(unregistered);
    }

    boolean allowed() {
      return refusals.isEmpty();
    }
  }

  private GroupCompatibility() {}

  /**
   * @param self the joining instance
   * @param live the instances (client ids) with members in the group; {@code self}'s own is ignored
   *     (a member its earlier run left behind)
   * @param registrations the registrations by instance
   */
  static Verdict judge(
      Registration self, Set<String> live, Map<String, Registration> registrations) {
    List<String> refusals = new ArrayList<>();
    List<String> unregistered = new ArrayList<>();
    boolean topologyDiffers = false;
    for (String instance : new TreeSet<>(live)) {
      if (instance.equals(self.instance())) {
        continue;
      }
      Registration member = registrations.get(instance);
      if (member == null) {
        unregistered.add(instance);
        if (self.writesGeneration() > FormatGenerations.UNREGISTERED) {
          refusals.add(
              "member '"
                  + instance
                  + "' has no registration, so it runs a build from before registrations, which"
                  + " reads format generation "
                  + FormatGenerations.UNREGISTERED
                  + " only, and this instance would write generation "
                  + self.writesGeneration()
                  + ": start it with PREFIXLOG_UPGRADE_FROM="
                  + FormatGenerations.UNREGISTERED
                  + " until every member runs this build");
        }
        continue;
      }
      if (!member.fingerprint().equals(self.fingerprint())) {
        refusals.add(topologyDiffers(self, member));
        topologyDiffers = true;
      }
      if (self.writesGeneration() > member.readsGeneration()) {
        refusals.add(
            "member '"
                + instance
                + "' reads format generations up to "
                + member.readsGeneration()
                + " and this instance would write generation "
                + self.writesGeneration()
                + ": start it with PREFIXLOG_UPGRADE_FROM="
                + member.readsGeneration()
                + " until every member runs this build");
      }
      if (member.writesGeneration() > self.readsGeneration()) {
        refusals.add(
            "member '"
                + instance
                + "' writes format generation "
                + member.writesGeneration()
                + ", which this build cannot read (it reads up to "
                + self.readsGeneration()
                + "): the group already writes formats newer than this build, so it cannot be"
                + " rolled back to it (see the README's upgrade section)");
      }
    }
    return new Verdict(refusals, unregistered, topologyDiffers);
  }

  private static String topologyDiffers(Registration self, Registration member) {
    Set<String> onlyHere = new TreeSet<>(self.names());
    onlyHere.removeAll(member.names());
    Set<String> onlyThere = new TreeSet<>(member.names());
    onlyThere.removeAll(self.names());
    String difference =
        onlyHere.isEmpty() && onlyThere.isEmpty()
            ? "the same names, connected differently"
            : "only in this one: "
                + listed(onlyHere)
                + "; only in the member's: "
                + listed(onlyThere);
    return "member '"
        + member.instance()
        + "' runs topology "
        + member.fingerprint()
        + " and this instance has topology "
        + self.fingerprint()
        + " ("
        + difference
        + ")";
  }

  private static String listed(Set<String> names) {
    if (names.isEmpty()) {
      return "none";
    }
    List<String> shown = names.stream().limit(LISTED_NAMES).toList();
    String more =
        names.size() > shown.size() ? " and " + (names.size() - shown.size()) + " more" : "";
    return String.join(", ", shown) + more;
  }
}
