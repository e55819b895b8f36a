/** The archive's command-line side: its settings and the embedded archive started by up. */
package io.prefixlog.tools.archive;
