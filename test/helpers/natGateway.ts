// Fake home routers for the NAT tests of both programs: a UPnP Internet Gateway Device (IGDv2, WANIPConnection:2)
// on 127.0.0.1 that serves its description, records every SOAP action and grants every port mapping as asked, and
// a NAT-PMP router (RFC 6886) on a loopback address of its own that does the same.
import { randomInt } from 'node:crypto';
import { createSocket } from 'node:dgram';
import { createServer } from 'node:http';

const SERVICE = 'urn:schemas-upnp-org:service:WANIPConnection:2';
const DESCRIPTION = `<?xml version="1.0"?>
<root xmlns="urn:schemas-upnp-org:device-1-0"><device>
<deviceType>urn:schemas-upnp-org:device:InternetGatewayDevice:2</deviceType><UDN>uuid:fake-igd</UDN>
<serviceList><service><serviceType>${SERVICE}</serviceType><serviceId>urn:upnp-org:serviceId:WANIPConn1</serviceId>
<controlURL>/ctl</controlURL><SCPDURL>/scpd.xml</SCPDURL></service></serviceList>
</device></root>`;

function soap(action: string, body: string): string {
  return `<?xml version="1.0"?><s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body><u:${action}Response xmlns:u="${SERVICE}">${body}</u:${action}Response></s:Body></s:Envelope>`;
}

export interface FakeUpnpGateway {
  /** The device description's URL, for upnpNat().getGateway(url). */
  url: URL;
  actions: Array<{ action: string; body: string }>;
  close(): void;
}

export async function fakeUpnpGateway(externalIp = '203.0.113.9'): Promise<FakeUpnpGateway> {
  const actions: Array<{ action: string; body: string }> = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      res.setHeader('content-type', 'text/xml');
      if (req.method === 'GET') {
        res.end(DESCRIPTION);
        return;
      }
      const action = /#(\w+)"/.exec(String(req.headers.soapaction))?.[1] ?? '';
      actions.push({ action, body });
      if (action === 'GetExternalIPAddress')
        res.end(soap(action, `<NewExternalIPAddress>${externalIp}</NewExternalIPAddress>`));
      else if (action === 'AddAnyPortMapping') {
        const port = /<NewExternalPort>(\d+)</.exec(body)?.[1];
        res.end(soap(action, `<NewReservedPort>${port}</NewReservedPort>`));
      } else res.end(soap(action, ''));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const addr = server.address() as { port: number };
  return { url: new URL(`http://127.0.0.1:${addr.port}/desc.xml`), actions, close: () => server.close() };
}

/** A loopback address of its own per test: NAT-PMP's server port (5351) is fixed by RFC 6886. */
export function loopbackAddress(): string {
  return `127.${randomInt(1, 255)}.${randomInt(0, 256)}.${randomInt(1, 255)}`;
}

export interface PmpRequest {
  op: number;
  internal?: number;
  external?: number;
  lifetime?: number;
}

/** A NAT-PMP router (RFC 6886 sections 3.2 and 3.3) that grants every mapping as asked. */
export interface FakePmpRouter {
  /** Opcode 0: external address; 1: map UDP; 2: map TCP (lifetime in seconds, 0 deletes). */
  requests: PmpRequest[];
  close(): void;
}

/** `answerFor` rewrites the internal port of its mapping replies (a reply meant for another client). */
export async function fakePmpRouter(
  ip: string,
  externalIp = '198.51.100.7',
  answerFor: (port: number) => number = (port) => port,
): Promise<FakePmpRouter> {
  const requests: PmpRequest[] = [];
  const socket = createSocket('udp4');
  socket.on('message', (msg, from) => {
    const op = msg[1] as number;
    const out = Buffer.alloc(op === 0 ? 12 : 16);
    out[1] = op + 128;
    out.writeUInt32BE(1, 4); // seconds since the router's epoch
    if (op === 0) {
      requests.push({ op });
      out.set(externalIp.split('.').map(Number), 8);
    } else {
      const req = { op, internal: msg.readUInt16BE(4), external: msg.readUInt16BE(6), lifetime: msg.readUInt32BE(8) };
      requests.push(req);
      out.writeUInt16BE(answerFor(req.internal), 8);
      out.writeUInt16BE(req.external, 10);
      out.writeUInt32BE(req.lifetime, 12);
    }
    socket.send(out, from.port, from.address);
  });
  await new Promise<void>((r) => socket.bind(5351, ip, r));
  return { requests, close: () => socket.close() };
}
