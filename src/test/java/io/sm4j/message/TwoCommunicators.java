package io.sm4j.message;

import io.sm4j.layout.LayoutParams;
import io.sm4j.transport.TwoRanks;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

import java.io.IOException;

/**
 * Test base: a communicator for each rank of a real two-rank segment in this JVM ({@link TwoRanks}), made
 * before each test and closed (segment removed) after it.
 */
abstract class TwoCommunicators
{
    protected TwoRanks ranks;
    protected Communicator rank0;
    protected Communicator rank1;

    @BeforeEach
    void open() throws IOException
    {
        ranks = new TwoRanks(LayoutParams.defaults(2));
        rank0 = new Communicator(ranks.rank0);
        rank1 = new Communicator(ranks.rank1);
    }

    @AfterEach
    void close() throws IOException
    {
        ranks.close();
    }
}
