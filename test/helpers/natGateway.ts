// A fake UPnP Internet Gateway Device (IGDv2, WANIPConnection:2) on 127.0.0.1 for the NAT tests of both programs:
// it serves its description, records every SOAP action and grants every port mapping as asked.
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
