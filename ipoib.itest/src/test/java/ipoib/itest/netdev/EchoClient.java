package ipoib.itest.netdev;

import java.io.DataInputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.Arrays;
import java.util.Random;

/**
 * Plain java.net, run in its own JVM in a host's namespace: sends N pseudo-random bytes to
 * host:port, reads the echo and compares.
 */
public class EchoClient {
    public static void main(String[] args) throws Exception {
        byte[] data = new byte[Integer.parseInt(args[2])];
        new Random(42).nextBytes(data);
        byte[] back = new byte[data.length];
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(args[0], Integer.parseInt(args[1])), 10_000);
            s.setSoTimeout(30_000);
            Thread writer = Thread.ofPlatform().start(() -> {
                try {
                    OutputStream out = s.getOutputStream();
                    out.write(data);
                    out.flush();
                    s.shutdownOutput();
                } catch (Exception e) {
                    e.printStackTrace();
                }
            });
            new DataInputStream(s.getInputStream()).readFully(back);
            writer.join();
        }
        if (!Arrays.equals(data, back)) {
            System.out.println("MISMATCH");
            System.exit(1);
        }
        System.out.println("echoed " + data.length + " bytes identical via " + args[0]);
    }
}
