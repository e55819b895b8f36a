/** What every prefixlog command shares: option parsing and help, terminal output, progress bars. */
package io.prefixlog.tools.cli;
