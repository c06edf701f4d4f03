package ipoib.itest.netdev;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.Socket;

/**
 * Plain java.net, run in its own JVM in a host's namespace: accepts one connection on the port
 * given and echoes every byte back.
 */
public class EchoServer {
    public static void main(String[] args) throws Exception {
        try (ServerSocket server = new ServerSocket(Integer.parseInt(args[0]))) {
            System.out.println("listening on " + server.getLocalSocketAddress());
            try (Socket s = server.accept(); InputStream in = s.getInputStream(); OutputStream out = s.getOutputStream()) {
                in.transferTo(out);
            }
        }
    }
}
