/** The prefixlog launcher and its dispatch table of subcommands. */
package io.prefixlog.tools;
