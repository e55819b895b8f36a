package io.prefixlog.tools.settings;

import io.prefixlog.cli.CommandLine;
import io.prefixlog.cli.Option;
import io.prefixlog.cli.Terminal;
import io.prefixlog.tools.Command;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code prefixlog settings}: the settings of the stream app, the capture proxy and the KV-event
 * subscriber, with their values, defaults and meaning, as the services read them (the tables are
 * the services' own descriptors, so they cannot drift from the code).
 */
public final class SettingsCommand implements Command {
  private static final String NAME = "prefixlog settings";
  private static final String DESCRIPTION =
      "Lists every setting the services read (environment variables, or the same names in the"
          + " properties file PREFIXLOG_CONFIG_FILE names), with the values it takes, its default"
          + " and what it does.";
  private static final List<Option> OPTIONS =
      List.of(
          Option.value("service", "NAME", "all", "stream-app, proxy or kv.").repeatable(),
          Option.flag("markdown", "Print Markdown tables, as in the READMEs."));

  private final Terminal terminal;

  public SettingsCommand(Terminal terminal) {
    this.terminal = terminal;
  }

  @Override
  public Spec spec() {
    return new Spec(
        "settings",
        "List the services' settings: values, defaults, meaning (--markdown for tables).",
        DESCRIPTION,
        OPTIONS);
  }

  @Override
  public int run(String[] args) {
    return invoke(args, terminal, line -> line, this::list);
  }

  private int list(CommandLine line) {
    List<ServiceSettings> services = new ArrayList<>();
    for (String id : line.values("service")) {
      try {
        services.add(ServiceSettings.named(id));
      } catch (IllegalArgumentException e) {
        terminal.err().println(NAME + ": --service: " + e.getMessage());
        return USAGE;
      }
    }
    if (services.isEmpty()) {
      services.addAll(List.of(ServiceSettings.values()));
    }
    boolean markdown = line.has("markdown");
    for (int i = 0; i < services.size(); i++) {
      if (i > 0) {
        terminal.out().println();
      }
      ServiceSettings service = services.get(i);
      if (markdown) {
        terminal.out().print(service.definition().markdownTable());
      } else {
        terminal.out().print(service.definition().helpText());
      }
    }
    return OK;
  }
}
