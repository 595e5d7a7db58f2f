package io.sm4j.job;

import io.sm4j.segment.BadSettingException;
import io.sm4j.transport.TransportOptions;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The ranks' settings as the environment gives them.
 */
class EnvironmentTest
{
    /**
     * An optional setting left empty ({@code SM4J_IDLE= sm4j run ...}) is unset, as a shell's ${VAR:-default} takes
     * it (before: "SM4J_IDLE is not set: start ranks with 'sm4j run ...'", to a user who had).
     */
    @Test
    void anEmptyOptionalSettingShouldTakeItsDefault()
    {
        final TransportOptions defaults = TransportOptions.defaults();
        final TransportOptions empty = TransportOptions.fromEnvironment(Map.of(TransportOptions.IDLE_ENV, "",
            TransportOptions.LAZY_FREE_ENV, " ", TransportOptions.ATTACH_TIMEOUT_ENV, "", TransportOptions.UNEXPECTED_BYTES_ENV, ""));
        assertEquals(defaults, empty);
    }

    @Test
    void aRequiredSettingLeftEmptyShouldSaySo()
    {
        assertEquals("SM4J_RANK is not set: start ranks with 'sm4j run -n N -- <main class>'",
            assertThrows(BadSettingException.class, () -> Environment.intValue(Map.of("SM4J_RANK", ""), "SM4J_RANK")).getMessage());
        assertEquals("SM4J_IDLE=fast is not one of [auto, spin, yield, block]", assertThrows(BadSettingException.class,
            () -> Environment.enumValue(Map.of("SM4J_IDLE", "fast"), "SM4J_IDLE", TransportOptions.Idle.AUTO)).getMessage());
    }
}
