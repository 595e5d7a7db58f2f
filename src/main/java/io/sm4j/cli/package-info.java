/**
 * The {@code sm4j} command line: argument parsing, help, and the mapping of failures to one-line errors
 * and exit codes (2 for bad input). Subcommands only parse and delegate.
 */
package io.sm4j.cli;
