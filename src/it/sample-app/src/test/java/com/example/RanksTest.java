package com.example;

import io.sm4j.collective.Op;
import io.sm4j.message.ThreadJob;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

/**
 * The application of docs/api.md's sample pom.xml (which is this project's, verbatim): its tests start ranks
 * as threads, which needs the surefire argLine the sample gives.
 */
class RanksTest
{
    @Test
    void ranksAsThreadsShouldReduceTogether() throws Exception
    {
        final long[] sums = new long[3];
        ThreadJob.run(3, comm ->
        {
            final long[] sum = new long[1];
            comm.allReduce(new long[] { comm.rank() + 1 }, sum, Op.SUM);
            sums[comm.rank()] = sum[0];
        });
        assertArrayEquals(new long[] { 6, 6, 6 }, sums);
    }
}
