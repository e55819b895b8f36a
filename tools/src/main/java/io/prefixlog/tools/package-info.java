/** The prefixlog launcher and its subcommands. */
package io.prefixlog.tools;
