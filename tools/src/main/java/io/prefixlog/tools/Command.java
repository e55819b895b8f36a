package io.prefixlog.tools;

import io.prefixlog.tools.cli.Option;
import java.util.List;

/**
 * One subcommand of {@code prefixlog}: an entry of {@link Prefixlog}'s dispatch table.
 *
 * <p>Exit codes: {@value #OK} success, {@value #FAILED} the command ran and something failed,
 * {@value #USAGE} the command line is wrong (the message names the option).
 */
public interface Command {
  int OK = 0;
  int FAILED = 1;
  int USAGE = 2;

  /** The word that selects it: {@code prefixlog <name> ...}. */
  String name();

  /** One line for {@code prefixlog help}. */
  String summary();

  /** Its options (what {@code --help} lists and the completion script completes). */
  default List<Option> options() {
    return List.of();
  }

  /**
   * Runs the command; handles {@code --help} itself.
   *
   * @param args the arguments after the command name
   * @return the process exit code
   */
  int run(String[] args);
}
