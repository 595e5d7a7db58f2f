package io.sm4j.layout;

/**
 * What the segment's bytes are spent on, in the rows of the RFC's memory table.
 */
public enum Category
{
    CB_WRAPPERS("CB wrappers"),
    CB_QUEUES_AND_TAILS("CB queues+tails"),
    CB_HEADS("CB heads"),
    FIFO_DESCRIPTORS("FIFO descriptors"),
    EAGER_POOLS("eager freelists"),
    MAX_POOLS("max freelists"),
    EAGER_CREDITS("eager credits"),
    FAST_BOXES("fast boxes"),
    COLLECTIVES("collective regions"),
    HEADER_AND_CONTROL("header and control"),
    DOORBELLS("doorbells"),
    COUNTERS("counters");

    private final String label;

    Category(final String label)
    {
        this.label = label;
    }

    /**
     * @return the row label used by the report.
     */
    public String label()
    {
        return label;
    }
}
