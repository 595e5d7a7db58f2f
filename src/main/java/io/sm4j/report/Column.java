package io.sm4j.report;

import io.sm4j.layout.LayoutParams;
import io.sm4j.layout.Policy;

/**
 * The columns of the RFC's memory table: one per placement policy (two page sizes for PAGE).
 */
public enum Column
{
    PAGE_8K("PAGE 8K", Policy.PAGE, 8192),
    PAGE_4K("PAGE 4K", Policy.PAGE, 4096),
    CACHELINE("CACHELINE", Policy.CACHELINE, 0),
    AGGREGATED("AGGREGATED", Policy.AGGREGATED, 0);

    private final String title;
    private final Policy policy;
    private final int pageSize;

    Column(final String title, final Policy policy, final int pageSize)
    {
        this.title = title;
        this.policy = policy;
        this.pageSize = pageSize;
    }

    public String title()
    {
        return title;
    }

    /**
     * @param params the user's parameters.
     * @return the same parameters with this column's policy (and page size, for PAGE columns).
     */
    public LayoutParams apply(final LayoutParams params)
    {
        final LayoutParams.Builder builder = params.toBuilder().policy(policy);
        return pageSize == 0 ? builder.build() : builder.pageSize(pageSize).build();
    }
}
