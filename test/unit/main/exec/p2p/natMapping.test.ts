// --nat upnp: the port mappings tern-exec asks of an Internet Gateway Device (IGDv2, WANIPConnection:2), driven
// through @achingbrain/nat-port-mapper against a tiny fake gateway on 127.0.0.1 that records the SOAP actions.
import { createServer, type Server } from 'node:http';
import { upnpNat } from '@achingbrain/nat-port-mapper';
import { afterEach, describe, expect, it } from 'vitest';
import { mapPorts } from '../../../../../src/main/exec/p2p/natMapping.js';
import { natPlan } from '../../../../../src/main/exec/p2p/options.js';

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

const servers: Server[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.close();
});

async function fakeGateway(): Promise<{ url: URL; actions: Array<{ action: string; body: string }> }> {
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
        res.end(soap(action, '<NewExternalIPAddress>203.0.113.9</NewExternalIPAddress>'));
      else if (action === 'AddAnyPortMapping') {
        const port = /<NewExternalPort>(\d+)</.exec(body)?.[1];
        res.end(soap(action, `<NewReservedPort>${port}</NewReservedPort>`));
      } else res.end(soap(action, ''));
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const addr = server.address() as { port: number };
  return { url: new URL(`http://127.0.0.1:${addr.port}/desc.xml`), actions };
}

describe('NAT port mapping (UPnP)', () => {
  it("maps the TCP and UDP ports to the node's address and reads the external IP", async () => {
    const { url, actions } = await fakeGateway();
    const gateway = await upnpNat({ description: 'tern-exec', autoRefresh: false }).getGateway(url);
    const mapped = await mapPorts(gateway, '192.168.1.20', 30303, 30304);
    expect(mapped).toEqual({ externalIp: '203.0.113.9', tcp: 30303, udp: 30304 });
    const adds = actions.filter((a) => a.action === 'AddAnyPortMapping').map((a) => a.body);
    expect(adds).toHaveLength(2);
    expect(adds[0]).toMatch(
      /<NewProtocol>TCP<[\s\S]*<NewInternalPort>30303<[\s\S]*<NewInternalClient>192\.168\.1\.20</,
    );
    expect(adds[1]).toMatch(/<NewProtocol>UDP<[\s\S]*<NewInternalPort>30304</);
    await gateway.stop();
    expect(actions.filter((a) => a.action === 'DeletePortMapping')).toHaveLength(2);
  });

  it('--nat names the mechanism', () => {
    expect(natPlan('upnp').gateway).toEqual({ kind: 'upnp' });
    expect(natPlan('pmp').gateway).toEqual({ kind: 'pmp', ip: undefined });
    expect(natPlan('pmp:192.168.0.1').gateway).toEqual({ kind: 'pmp', ip: '192.168.0.1' });
    expect(natPlan('any').gateway).toBeUndefined();
  });
});
