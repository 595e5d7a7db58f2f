// Reference for docs/benchmarks.md (issue 23): ns per float of the predefined SUM over float (Op.over), applied
// to two 64 KiB heap buffers 2,000 times, five rounds (the last ones are compiled). In package
// io.sm4j.collective because Op.over is package-private.
// Build: javac -cp target/sm4j.jar:$AGRONA -d /tmp/oc docs/OperatorCost.java
// Run:   java --add-opens java.base/jdk.internal.misc=ALL-UNNAMED -cp /tmp/oc:target/sm4j.jar:$AGRONA io.sm4j.collective.OperatorCost
//        ($AGRONA: the agrona jar, e.g. from mvn dependency:build-classpath; a build's target/classes in place of
//        target/sm4j.jar measures that build)
package io.sm4j.collective;

import org.agrona.concurrent.UnsafeBuffer;

public class OperatorCost
{
    public static void main(final String[] args)
    {
        final int length = 65536;
        final UnsafeBuffer left = new UnsafeBuffer(new byte[length]);
        final UnsafeBuffer right = new UnsafeBuffer(new byte[length]);
        final ByteOperator sum = Op.SUM.over(ElementType.FLOAT);
        for (int round = 0; round < 5; round++)
        {
            final long start = System.nanoTime();
            for (int i = 0; i < 2000; i++)
            {
                sum.apply(left, 0, right, 0, length);
            }
            System.out.printf("round %d: %.2f ns per float%n", round, (System.nanoTime() - start) / 2000.0 / (length / 4));
        }
    }
}
