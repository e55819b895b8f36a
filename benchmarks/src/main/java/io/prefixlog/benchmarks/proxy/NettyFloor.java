package io.prefixlog.benchmarks.proxy;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.net.InetSocketAddress;
import java.net.URI;

/**
 * A reference for ProxyBenchmark, not a product: the least a JVM reverse proxy on Netty's epoll
 * transport does for the benchmark's exchange, so that the CPU per request of "the JVM and Netty
 * alone" is measured next to nginx's and prefixlog's in the same rounds. No capture, no metrics, no
 * header policy, no timeouts, no back-pressure: each client connection gets one upstream connection
 * on its own event loop, and request and response pass whole (bodies aggregated, as prefixlog
 * passes bodies up to 256 KiB and nginx buffers the request).
 */
final class NettyFloor implements AutoCloseable {
  private static final int MAX_BODY = 1 << 20;

  private final EventLoopGroup loops;
  private final Channel listener;

  private NettyFloor(EventLoopGroup loops, Channel listener) {
    this.loops = loops;
    this.listener = listener;
  }

  static NettyFloor start(URI upstream, int eventLoops) throws InterruptedException {
    EventLoopGroup loops =
        new MultiThreadIoEventLoopGroup(
            eventLoops, new DefaultThreadFactory("floor-loop"), EpollIoHandler.newFactory());
    InetSocketAddress target = new InetSocketAddress(upstream.getHost(), upstream.getPort());
    Channel listener =
        new ServerBootstrap()
            .group(loops)
            .channel(EpollServerSocketChannel.class)
            .childOption(ChannelOption.TCP_NODELAY, true)
            .childOption(ChannelOption.AUTO_READ, false)
            .childHandler(
                new ChannelInitializer<SocketChannel>() {
                  @Override
                  protected void initChannel(SocketChannel ch) {
                    ch.pipeline()
                        .addLast(new HttpServerCodec())
                        .addLast(new HttpObjectAggregator(MAX_BODY))
                        .addLast(new Front(target));
                  }
                })
            .bind("127.0.0.1", 0)
            .sync()
            .channel();
    return new NettyFloor(loops, listener);
  }

  int port() {
    return ((InetSocketAddress) listener.localAddress()).getPort();
  }

  @Override
  public void close() {
    listener.close().syncUninterruptibly();
    loops.shutdownGracefully().syncUninterruptibly();
  }

  /** The client side: connects its upstream first, then reads requests and forwards them. */
  private static final class Front extends SimpleChannelInboundHandler<FullHttpRequest> {
    private final InetSocketAddress target;
    private Channel back;

    Front(InetSocketAddress target) {
      super(false); // the request is released by the upstream write
      this.target = target;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
      Channel front = ctx.channel();
      new Bootstrap()
          .group(front.eventLoop())
          .channel(EpollSocketChannel.class)
          .option(ChannelOption.TCP_NODELAY, true)
          .handler(
              new ChannelInitializer<SocketChannel>() {
                @Override
                protected void initChannel(SocketChannel ch) {
                  ch.pipeline()
                      .addLast(new HttpClientCodec())
                      .addLast(new HttpObjectAggregator(MAX_BODY))
                      .addLast(new Back(front));
                }
              })
          .connect(target)
          .addListener(
              (ChannelFutureListener)
                  f -> {
                    if (f.isSuccess()) {
                      back = f.channel();
                      front.config().setAutoRead(true);
                      front.read();
                    } else {
                      front.close();
                    }
                  });
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
      request.headers().set(HttpHeaderNames.HOST, target.getHostString() + ":" + target.getPort());
      back.writeAndFlush(request);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      if (back != null) {
        back.close();
      }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      ctx.close();
    }
  }

  /** The upstream side: each whole response goes back to its client connection. */
  private static final class Back extends SimpleChannelInboundHandler<FullHttpResponse> {
    private final Channel front;

    Back(Channel front) {
      super(false); // the response is released by the client write
      this.front = front;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpResponse response) {
      boolean keepAlive = HttpUtil.isKeepAlive(response);
      var written = front.writeAndFlush(response);
      if (!keepAlive) {
        written.addListener(ChannelFutureListener.CLOSE);
      }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      front.close();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      ctx.close();
    }
  }
}
