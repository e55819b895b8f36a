package io.prefixlog.core.request;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * A set of names in which {@code *} stands for any characters, compared without regard to case:
 * {@code key} matches {@code key} and {@code KEY} only, {@code *token*} every name that contains
 * {@code token}. The rules of {@link QueryCredentials} and {@link BodyRedaction}.
 */
public final class WildcardNames {
  private final List<String> rules;
  private final Pattern names;

  public WildcardNames(List<String> rules) {
    this.rules = List.copyOf(rules);
    this.names = rules.isEmpty() ? null : Pattern.compile(regex(rules));
  }

  public boolean isEmpty() {
    return names == null;
  }

  public boolean matches(String name) {
    return names != null && names.matcher(name.toLowerCase(Locale.ROOT)).matches();
  }

  private static String regex(List<String> rules) {
    List<String> alternatives = new ArrayList<>();
    for (String rule : rules) {
      List<String> literals = new ArrayList<>();
      for (String literal : rule.toLowerCase(Locale.ROOT).split("\\*", -1)) {
        literals.add(Pattern.quote(literal));
      }
      alternatives.add(String.join(".*", literals));
    }
    return String.join("|", alternatives);
  }

  @Override
  public String toString() {
    return String.join(",", rules);
  }
}
