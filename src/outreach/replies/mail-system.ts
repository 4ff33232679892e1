import type { ParsedMail } from 'mailparser';

/**
 * Who sent a message, and what its words say, for telling the mail
 * system's notices from people's mail when no report part says so. Each
 * list is a vocabulary of mail systems in the languages they answer in;
 * none of it alone makes a bounce (classify.ts combines them).
 */

const header = (mail: ParsedMail, name: string) => (mail.headers.has(name) ? String(mail.headers.get(name)).trim() : undefined);
const sender = (mail: ParsedMail) => mail.from?.value[0];
/** `post_master`, `Mailer.Daemon`, `no-reply`: the local part with its separators dropped. */
const localPart = (address: string | undefined) =>
  (address ?? '')
    .split('@')[0]!
    .toLowerCase()
    .replace(/[-_.+]/g, '');

/** The mail system's own mailboxes (RFC 5321 postmaster, the daemons that return mail, Exchange's NDR sender). */
export function isMailDaemon(mail: ParsedMail): boolean {
  const from = sender(mail);
  return (
    /^(mailerdaemon|postmaster|mailerdaemons?|maildaemon|microsoftexchange[0-9a-f]{32})$/.test(localPart(from?.address)) ||
    /mailer[- _]?daemon|mail delivery (sub)?system|mail delivery service|^postmaster$|\bNDR\b/i.test(from?.name ?? '')
  );
}

/**
 * Sent by software rather than a person: a daemon; a null reverse path or
 * no sender at all (RFC 5321 has notices sent from `<>`, and people's
 * clients always name one); an address that takes no answers (no-reply);
 * a mailing-list manager's own address (`-admin`, `-owner`, `owner-`,
 * `-request`, `-bounces`); or RFC 3834's Auto-Submitted.
 */
export function isAutomatedSender(mail: ParsedMail): boolean {
  const from = sender(mail);
  // Several Return-Path fields (a message that went through more than one delivery) come as a list.
  const returnPaths = [mail.headers.get('return-path') ?? []].flat() as Array<{ value?: Array<{ address?: string }> }>;
  const local = (from?.address ?? '').split('@')[0]!.toLowerCase();
  const autoSubmitted = header(mail, 'auto-submitted')?.toLowerCase();
  return (
    isMailDaemon(mail) ||
    returnPaths.some((field) => !field.value?.some((a) => a.address)) ||
    !from?.address ||
    /noreply|donotreply|dontreply|^(bounces?|notifications?|mailerdaemon)$/.test(localPart(from.address)) ||
    /^owner-.|.-(admin|owner|request|bounces?)$/.test(local) ||
    (autoSubmitted !== undefined && autoSubmitted !== 'no')
  );
}

/**
 * Subjects mail systems give returned mail, at the start of the subject
 * (a person's answer starts with Re:, and the returned message's own
 * subject may follow and say anything).
 */
export const bounceSubject = new RegExp(
  '^\\s*(\\[[^\\]]*\\]\\s*)?(' +
    [
      // English
      'undeliver(able|ed)',
      'non[- ]?deliver(y|able)',
      'returned (mail|message)',
      '(e-?mail |mail |message )?delivery (status notification|notification|status|report|failure|failed|has failed|problem|error)',
      '(mail |message )?(failure|failed) (notice|delivery)',
      'failure notice',
      'mail (delivery )?(failure|failed|error)',
      'mail system error',
      'postmaster notif',
      '(message|mail|email) (could not|couldn.t|cannot|can.t|was not) be delivered',
      '(sorry, )?your (message|mail|email) (could not|couldn.t|was not|has not) (be(en)? )?delivered',
      'undelivered mail',
      '(could not|unable to) (deliver|send)',
      'warning: could not send',
      '(mail|message) (returned|rejected|blocked)',
      // German, French, Italian, Spanish, Portuguese, Dutch, Nordic, Polish, Czech
      '(nicht |un)zustellbar',
      '(zustellung|übermittlung|uebermittlung) (fehlgeschlagen|gescheitert)',
      'non (remis|distribu[ée]|d[ée]livr[ée])',
      '[ée]chec (de|d.)(la )?(remise|livraison|distribution|envoi)',
      'non recapitabile',
      'mancato recapito',
      'no se (puede|pudo) entregar',
      '(mensaje |correo )?(no entregado|devuelto)',
      'error de entrega',
      'n[ãa]o (foi )?(entregue|poss[íi]vel entregar)',
      'falha (na|de) entrega',
      'onbestelbaar',
      'niet (af)?geleverd',
      'olevererbar',
      '(kunne|kan) ikke leveres',
      'kunde inte levereras',
      'ikke leveret',
      'niedostarcz',
      'nie dostarczono',
      'nedoru[čc]iteln',
      // Russian, Ukrainian
      'недоставлен',
      '(ваше )?сообщение не (было )?доставлено',
      'не доставлено',
      // Japanese, Chinese, Korean
      'メールエラー',
      '(配信|送信|配達)(エラー|できません|に失敗|不能)',
      '未達',
      '不達',
      'エラー通知',
      '退信',
      '系统退信',
      '無法投遞|无法投递|未能送达|投递失败',
      '배달 ?실패|전송 ?실패|반송',
    ].join('|') +
    ')',
  'iu',
);

/** Words a notice uses for mail it could not deliver, anywhere in its own text. */
export const failureWording = new RegExp(
  [
    '(could not|couldn.t|cannot|can.t|was not|wasn.t|has not been|hasn.t been|will not be|won.t be) (be )?(delivered|relayed|sent)',
    '(address|recipient|user|mailbox) (could not|couldn.t|cannot|can.t) be found',
    'unable to receive (mail|e-?mail|messages)',
    'undeliverable',
    'not (be )?delivered',
    '(delivery|deliver(ing|y attempt)?)( to the following recipients?)?( has)? failed',
    '(failed|unable|impossible) to deliver',
    'permanent(ly)?( fatal)? (error|failure)',
    '(user|recipient|mailbox|address|account) (unknown|not found|does not exist|doesn.t exist|disabled|unavailable)',
    'unknown (user|recipient|mailbox)',
    'no such (user|mailbox|address|recipient|domain)',
    'mailbox (is )?(full|unavailable)',
    '(over|exceeded( the)?) ?quota',
    'quota exceeded',
    'invalid (user|recipient|address|mailbox)',
    'no valid recipients?',
    '(recipient|message|mail)( address)? (was )?(rejected|refused|blocked)',
    'not (a )?member',
    'not allowed to post',
    'envelope expired',
    'returning (message|mail) to sender',
    'host (name )?(unknown|not found)',
    // German, French, Spanish, Italian, Portuguese, Dutch, Russian, Japanese, Chinese
    'konnte nicht zugestellt werden',
    'unzustellbar',
    "n'a pas (pu|été) (être )?(remis|distribu|livr|d[ée]livr)",
    'no (se )?(pudo|ha podido) (ser )?entregar',
    'non (è stato possibile|ha potuto) (essere )?recapitat',
    'n[ãa]o (foi|p[ôo]de) (poss[íi]vel )?(ser )?entregue',
    'kon niet (worden )?(afgeleverd|bezorgd)',
    'не (может быть |было |удалось )?доставлен',
    '(送信|配信|配達)(できませんでした|できません|に失敗)',
    '無法投遞|无法投递|未能送达',
  ].join('|'),
  'iu',
);

/** Subjects of complaint notices sent as a plain message with the complained-of message attached (not RFC 5965). */
export const complaintSubject =
  /^\s*(complaint about (a )?message|(spam|abuse) (complaint|report)|e-?mail feedback report|feedback loop|fbl report|junk mail report)/i;

/** Anchored: a bounce's subject often ends with the returned message's own, which may say anything. */
export const delaySubject =
  /^((mail )?delivery status notification( \(delay\)|: warning)|delayed mail|delivery delayed|warning\b|zustellung verz[öo]gert)/i;
