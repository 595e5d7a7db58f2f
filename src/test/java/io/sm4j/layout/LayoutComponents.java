package io.sm4j.layout;

import java.util.ArrayList;
import java.util.List;

/**
 * Enumerates every component of a layout through its public accessors (test helper, O(n²)).
 */
final class LayoutComponents
{
    private LayoutComponents()
    {
    }

    static List<Component> of(final SegmentLayout layout)
    {
        final LayoutParams p = layout.params();
        final int n = p.peers();
        final long cl = p.cacheline();
        final long cbAlign = switch (p.policy())
        {
            case PAGE -> p.pageSize();
            case CACHELINE -> cl;
            case AGGREGATED -> CbIndexDescriptor.SLOT_LENGTH;
        };
        final long indexAlign = p.policy() == Policy.AGGREGATED && p.threadMode() == ThreadMode.MULTIPLE ? cl : cbAlign;
        final List<Component> all = new ArrayList<>();
        all.add(new Component("header", layout.headerOffset(), SegmentHeaderDescriptor.LENGTH, cl, Component.NO_WRITER));
        for (int r = 0; r < n; r++)
        {
            all.add(new Component("control " + r, layout.controlBlockOffset(r), ControlBlockDescriptor.OWNER_LENGTH, cl, r));
            all.add(new Component("doorbell " + r, layout.bellOffset(r), DoorbellDescriptor.LENGTH, cl,
                Component.MANY_WRITERS));
            all.add(new Component("counters " + r, layout.countersOffset(r), CountersDescriptor.LENGTH, cl, r));
            all.add(new Component("activity " + r, layout.activityOffset(r), ControlBlockDescriptor.activityLength(n), cl,
                Component.MANY_WRITERS));
            for (int s = 0; s < n; s++)
            {
                if (s == r)
                {
                    continue;
                }
                final String cb = " " + s + "->" + r;
                all.add(new Component("descriptor" + cb, layout.fifoDescriptorOffset(s, r), FifoDescriptor.LENGTH,
                    Long.BYTES, Component.NO_WRITER));
                all.add(new Component("queue" + cb, layout.queueOffset(s, r), layout.queueLength(),
                    p.policy() == Policy.AGGREGATED ? cl : cbAlign, Component.MANY_WRITERS));
                all.add(new Component("head" + cb, layout.headOffset(s, r), CbIndexDescriptor.HEAD_LENGTH, indexAlign, s));
                all.add(new Component("tail" + cb, layout.tailOffset(s, r), CbIndexDescriptor.TAIL_LENGTH, indexAlign, r));
                all.add(new Component("wrapper" + cb, layout.wrapperOffset(s, r), CbWrapperDescriptor.LENGTH, cbAlign,
                    Component.NO_WRITER));
                all.add(new Component("credits" + cb, layout.creditOffset(s, r), Long.BYTES, Long.BYTES, r));
            }
            for (int b = 0; b < layout.fastBoxCount(); b++)
            {
                all.add(new Component("fast box owner " + r + "#" + b, layout.fastBoxOwnerOffset(r, b),
                    FastBoxDescriptor.OWNER_LENGTH, FastBoxDescriptor.OWNER_LENGTH, Component.MANY_WRITERS));
                all.add(new Component("fast box consumed " + r + "#" + b, layout.fastBoxOffset(r, b), Long.BYTES, cl, r));
                all.add(new Component("fast box ring " + r + "#" + b, layout.fastBoxRingOffset(r, b), p.fastBoxSize(), cl,
                    Component.MANY_WRITERS));
            }
            for (int i = 0; i < layout.eagerFragmentCount(); i++)
            {
                all.add(new Component("eager " + r + "#" + i, layout.eagerFragmentOffset(r, i), p.eagerLimit(), cl, r));
            }
            for (int i = 0; i < layout.maxFragmentCount(); i++)
            {
                all.add(new Component("max " + r + "#" + i, layout.maxFragmentOffset(r, i), p.maxFragSize(), cl, r));
            }
        }
        return all;
    }
}
