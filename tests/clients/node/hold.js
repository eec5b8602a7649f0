// SPDX-License-Identifier: Apache-2.0
// Drives node's etcd3 client for qetcd's integration tests: takes a lock or campaigns in an
// election, prints a JSON line when it holds or leads, then keeps it until SIGTERM (gives it up)
// or SIGKILL. Lease IDs are printed in decimal, as strings: they do not fit a JS number.
//   node hold.js <endpoint> lock <key>
//   node hold.js <endpoint> elect <election name> <proclamation>
'use strict';
const { Etcd3 } = require('etcd3');

const [endpoint, recipe, name, proclamation] = process.argv.slice(2);
if (!endpoint || !['lock', 'elect'].includes(recipe) || !name || (recipe === 'elect' && !proclamation)) {
  console.error('usage: hold.js <endpoint> lock <key> | hold.js <endpoint> elect <name> <proclamation>');
  process.exit(2);
}

const client = new Etcd3({ hosts: endpoint });
const report = (event, fields) => console.log(JSON.stringify({ event, ...fields }));
const fail = error => {
  console.error(`hold.js: ${error.message}`);
  process.exit(1);
};

// SIGTERM gives up the lock or the candidacy, as a client that stops cleanly does.
let giveUp = () => Promise.resolve();
process.on('SIGTERM', () => giveUp().then(() => process.exit(0), fail));

if (recipe === 'lock') {
  // etcd3's Lock does not wait: acquire() fails at once while someone else holds the key.
  const lock = client.lock(name);
  lock.acquire()
    .then(() => lock.leaseId())
    .then(lease => {
      giveUp = () => lock.release();
      report('holding', { key: name, lease: String(lease) });
    })
    .catch(fail);
} else {
  const campaign = client.election(name).campaign(proclamation);
  giveUp = () => campaign.resign();
  campaign.on('error', fail);
  campaign.on('elected', () => campaign.getCampaignKey().then(key => report('leading', { key })));
  // The key is named before it is written: say "campaigning" once it is in etcd.
  const written = key => client.get(key).exists()
    .then(exists => exists ? key : new Promise(resolve => setTimeout(resolve, 50)).then(() => written(key)));
  campaign.getCampaignKey().then(written).then(key => report('campaigning', { key })).catch(fail);
}
